import { engineMain } from '../../../engine-kit/src/cli.ts';
import { netscanDefinition } from '../engine.ts';

await engineMain(netscanDefinition());
