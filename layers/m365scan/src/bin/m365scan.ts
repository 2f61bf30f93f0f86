import { engineMain } from '../../../engine-kit/src/cli.ts';
import { m365scan } from '../engine.ts';

await engineMain(m365scan);
