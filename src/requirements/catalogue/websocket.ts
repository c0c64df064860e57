import type { Requirement } from '../types.ts';

// Placeholder until the websocket suite's owner writes this area's requirements.
export const requirements: Requirement[] = [];
