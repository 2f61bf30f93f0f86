import { engineMain } from '../../../engine-kit/src/cli.ts';
import { vdiscanDefinition } from '../engine.ts';

await engineMain(vdiscanDefinition());
