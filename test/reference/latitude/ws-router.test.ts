/**
 * The router of ws-router-node-param(-close), in process (issue 39): the node token is fresh for each
 * URL and opens only unaltered; the gate lets through a URL that names its node and answers every
 * other (missing, altered, another node) with 502 or a closed socket.
 */
import type { Duplex } from 'node:stream';
import { afterEach, describe, expect, test } from 'vitest';
import { activateLatitude } from '../../../reference/latitude/index.ts';
import {
  openNode,
  ROUTER_NODE_PARAM,
  routerGate,
  sealNode,
  withRouterNode,
} from '../../../reference/latitude/ws-router.ts';
import { partName, tamper } from '../../../src/checks/websocket-url.ts';

const KEY = Buffer.alloc(32, 7);
const NODE = '127.0.0.1:40123';

function issued(): string {
  const url = new URL(`ws://${NODE}/v1/speak/worker/websocket`);
  url.searchParams.set('secret', Math.random().toString(36).slice(2));
  withRouterNode(url, KEY, NODE);
  return url.toString();
}

function fakeSocket(): { socket: Duplex; written: string[]; destroyed: () => boolean } {
  const written: string[] = [];
  let destroyed = false;
  const socket = {
    end: (text: string) => written.push(text),
    destroy: () => {
      destroyed = true;
    },
  } as unknown as Duplex;
  return { socket, written, destroyed: () => destroyed };
}

afterEach(() => activateLatitude([]));

describe('ws-router-node-param', () => {
  test('a node token is fresh each time and opens to its node only when unaltered', () => {
    const a = sealNode(KEY, NODE);
    const b = sealNode(KEY, NODE);
    expect(a).not.toBe(b);
    expect(openNode(KEY, a)).toBe(NODE);
    expect(openNode(KEY, b)).toBe(NODE);
    expect(openNode(Buffer.alloc(32, 8), a)).toBeUndefined();
    expect(openNode(KEY, null)).toBeUndefined();
    expect(openNode(KEY, `${a.slice(0, 10)}${a[10] === '0' ? '1' : '0'}${a.slice(11)}`)).toBeUndefined();
  });

  test('off: URLs carry no node and the gate does nothing', () => {
    expect(new URL(issued()).searchParams.has(ROUTER_NODE_PARAM)).toBe(false);
    const { socket, written } = fakeSocket();
    expect(routerGate(KEY, () => NODE)(new URL('ws://x/?secret=1'), socket)).toBe(false);
    expect(written).toEqual([]);
  });

  test('every copy the harness tampers of the node part gets 502; the URL as issued passes', () => {
    activateLatitude(['ws-router-node-param']);
    const gate = routerGate(KEY, () => NODE);
    const url = issued();
    const second = issued();
    expect(gate(new URL(url), fakeSocket().socket)).toBe(false);
    const nodeCopies = tamper(url, second).filter((t) =>
      t.why.startsWith(partName({ query: ROUTER_NODE_PARAM })),
    );
    expect(nodeCopies).toHaveLength(3);
    for (const { url: copy } of nodeCopies) {
      const { socket, written, destroyed } = fakeSocket();
      expect(gate(new URL(copy), socket)).toBe(true);
      expect(written[0]).toMatch(/^HTTP\/1\.1 502 Bad Gateway\r\n/);
      expect(destroyed()).toBe(false);
    }
    // A token for another node (a URL of another stack's node) has no upstream here either.
    const other = new URL(url);
    other.searchParams.set(ROUTER_NODE_PARAM, sealNode(KEY, '127.0.0.1:1'));
    expect(gate(other, fakeSocket().socket)).toBe(true);
  });

  test('the -close form closes the connection without an answer', () => {
    activateLatitude(['ws-router-node-param-close']);
    const gate = routerGate(KEY, () => NODE);
    const url = new URL(issued());
    expect(url.searchParams.has(ROUTER_NODE_PARAM)).toBe(true);
    expect(gate(url, fakeSocket().socket)).toBe(false);
    url.searchParams.delete(ROUTER_NODE_PARAM);
    const { socket, written, destroyed } = fakeSocket();
    expect(gate(url, socket)).toBe(true);
    expect(written).toEqual([]);
    expect(destroyed()).toBe(true);
  });
});
