import { engineMain } from '../../../engine-kit/src/cli.ts';
import { tlsscan } from '../engine.ts';

await engineMain(tlsscan);
