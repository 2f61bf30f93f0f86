import { engineMain } from '../../../engine-kit/src/cli.ts';
import { nhiscan } from '../engine.ts';

await engineMain(nhiscan);
