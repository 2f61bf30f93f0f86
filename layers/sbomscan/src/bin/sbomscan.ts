import { engineMain } from '../../../engine-kit/src/cli.ts';
import { sbomscan } from '../engine.ts';

await engineMain(sbomscan);
