import { engineMain } from '../../../engine-kit/src/cli.ts';
import { medscanDefinition } from '../engine.ts';

await engineMain(medscanDefinition());
