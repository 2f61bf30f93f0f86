import { engineMain } from '../../../engine-kit/src/cli.ts';
import { mailscanDefinition } from '../cli/definition.ts';

/** The executable (the bundle the launcher imports): mailscan on the kit's CLI frame. */
await engineMain(mailscanDefinition);
