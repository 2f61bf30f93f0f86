import { engineMain } from '../../../engine-kit/src/cli.ts';
import { webscan } from '../engine.ts';

await engineMain(webscan);
