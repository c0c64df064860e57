/**
 * The routes of the contract that need a token (suites/auth.spec.ts calls each without one, or with a
 * tampered or garbage one). Identifiers need not exist: the token is checked first.
 */
export interface ProtectedRoute {
  method: string;
  path: string;
  json?: unknown;
  query?: Record<string, string>;
}

/** Every protected route, `model` the one a model route names and `probe` an unknown identifier. */
export function protectedRoutesOf(model: string, probe: string): ProtectedRoute[] {
  return [
    { method: 'GET', path: '/v1/speak/models' },
    { method: 'GET', path: `/v1/speak/models/${encodeURIComponent(model)}` },
    { method: 'GET', path: '/v1/speak/voices' },
    { method: 'GET', path: `/v1/speak/voices/${probe}` },
    {
      method: 'POST',
      path: '/v1/speak/voices/generate',
      json: { name: `${probe}-voice`, gender: 'female', model },
    },
    { method: 'GET', path: '/v1/speak/takes' },
    { method: 'GET', path: `/v1/speak/takes/${probe}` },
    { method: 'POST', path: '/v1/speak/takes/generate', json: { text: 'Unauthorised.', voice_id: probe } },
    ...['wav', 'mp3', 'm4a', 'flac', 'webm'].map((format) => ({
      method: 'GET',
      path: `/v1/speak/takes/${probe}/${format}`,
    })),
    { method: 'GET', path: '/v1/speak/websocket', query: { model } },
  ];
}
