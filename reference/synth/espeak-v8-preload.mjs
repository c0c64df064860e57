// espeak's V8 flags (./espeak-v8.mjs) for a script started by hand or by a bench, given as Node's first
// --import, before tsx's: `node --import ./reference/synth/espeak-v8-preload.mjs --import tsx <script>`.
// Nothing has run hot yet when it is evaluated, so the flags change under no compile in flight.
import { setFlagsFromString } from 'node:v8';
import { ESPEAK_V8_FLAGS } from './espeak-v8.mjs';

for (const flag of ESPEAK_V8_FLAGS) setFlagsFromString(flag);
