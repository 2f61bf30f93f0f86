import { engineMain } from '../../../engine-kit/src/cli.ts';
import { secretscan } from '../engine.ts';

await engineMain(secretscan);
