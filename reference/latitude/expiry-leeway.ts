/**
 * Latitude expiry-leeway: how long past its lifetime an access token (../auth/tokens.ts), a signed
 * audio URL (../signing/audio-url.ts) or a websocket URL (../worker/websocket/secret.ts) is still
 * accepted, as a server allowing for clock skew does (RFC 7519 §4.1.4); without the switch, none.
 */
import { latitude } from './index.ts';

export const EXPIRY_LEEWAY_S = 20;

export function expiryLeewayS(): number {
  return latitude.has('expiry-leeway') ? EXPIRY_LEEWAY_S : 0;
}
