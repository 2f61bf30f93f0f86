import { engineMain } from '../../../engine-kit/src/cli.ts';
import { llmscan } from '../engine.ts';

await engineMain(llmscan);
