/**
 * The takes table: rows ↔ the Take resource, and the writes that change a take's status (each with
 * its item event in the same transaction).
 *
 * `prosody` and `style` hold what the client sent (GET shows them as sent, null when omitted; a
 * partial prosody completed with 0, api/take-builder.ts);
 * `rendering` holds what synthesis uses (a VoiceRendering, fixed at generation time): the take's own
 * prosody and style, else the voice's defaults, the language, gender and the voice's seed. So a take
 * is spoken as asked even when its voice is changed or deleted later.
 */

import type { Database } from 'better-sqlite3';
import { defects } from '../defects/index.ts';
import { recordItemEvent } from '../events/item-events.ts';
import type { VoiceRendering } from '../synth/index.ts';
import { fromJsonColumn, toJsonColumn } from './db.ts';
import { getItemRow, getUserItemRow, insertItemRow } from './item-rows.ts';
import { isDone, STATUS_RANK } from './status.ts';
import { advanceVoice } from './voices.ts';

export interface TakeRow {
  take_id: string;
  user_id: string;
  voice_id: string;
  text: string;
  override_language: string | null;
  style: string | null;
  prosody: string | null;
  rendering: string;
  status_webhook: string | null;
  done_webhook: string | null;
  user_data: string | null;
  status: string;
  timestamp_ms: number;
  info: string | null;
  worker: string | null;
  error: string | null;
  example_of: string | null;
}

export type TakeResource = Record<string, unknown> & { take_id: string; status: string };

/** The info of the defect switches that concern it (reference/defects), else as stored. */
interface TakeInfo {
  duration: number;
  audio_rate: number;
  normalized_text: string[];
}
function defectiveInfo(row: TakeRow, info: TakeInfo | null): TakeInfo | null {
  if (info === null && row.status !== 'ready' && defects.has('info-before-ready')) {
    return { duration: 0, audio_rate: 22050, normalized_text: [row.text] };
  }
  // Defect info-while-generating: null while waiting, an estimate once the worker has started the take.
  if (
    info === null &&
    (row.status === 'started' || row.status.startsWith('progress_')) &&
    defects.has('info-while-generating')
  ) {
    return { duration: 0, audio_rate: 22050, normalized_text: [row.text] };
  }
  return info;
}

/** Defect ready-not-final: reads of a ready take alternate with progress_75, as a re-queued take would show. */
const readyReads = new Map<string, number>();

function shownStatus(row: TakeRow): string {
  if (defects.has('status-goes-backwards') && row.status.startsWith('progress_')) return 'waiting';
  if (defects.has('ready-not-final') && row.status === 'ready') {
    const reads = (readyReads.get(row.take_id) ?? 0) + 1;
    readyReads.set(row.take_id, reads);
    if (reads % 2 === 0) return 'progress_75';
  }
  return row.status;
}

/**
 * Defect take-timestamp-seconds: timestamp_ms in seconds. Defect take-timestamp-string: the
 * milliseconds as a string of digits (a 64-bit integer serialized as text).
 */
function shownTimestamp(ms: number): number | string {
  if (defects.has('take-timestamp-seconds')) return Math.floor(ms / 1000);
  if (defects.has('take-timestamp-string')) return String(ms);
  return ms;
}

export function takeResource(row: TakeRow): TakeResource {
  return {
    take_id: row.take_id,
    voice_id: row.voice_id,
    text: row.text,
    override_language: row.override_language,
    style: defects.has('take-style-dropped') ? null : fromJsonColumn(row.style),
    prosody: fromJsonColumn(row.prosody),
    status_webhook: fromJsonColumn(row.status_webhook),
    done_webhook: fromJsonColumn(row.done_webhook),
    status: shownStatus(row),
    timestamp_ms: shownTimestamp(row.timestamp_ms),
    info: defectiveInfo(row, fromJsonColumn(row.info)),
    user_data: fromJsonColumn(row.user_data),
  };
}

export interface NewTake {
  take_id: string;
  user_id: string;
  voice_id: string;
  text: string;
  override_language: string | null;
  style: string[] | null;
  prosody: Record<string, number> | null;
  rendering: VoiceRendering;
  status_webhook: unknown;
  done_webhook: unknown;
  user_data: string | number | null;
  timestamp_ms: number;
  example_of: string | null;
}

/** Inserts a take in `waiting` with its creation event; call inside a transaction. */
export function insertTake(db: Database, t: NewTake): TakeResource {
  return insertItemRow(
    db,
    'take',
    {
      take_id: t.take_id,
      user_id: t.user_id,
      voice_id: t.voice_id,
      text: t.text,
      override_language: t.override_language,
      style: toJsonColumn(t.style),
      prosody: toJsonColumn(t.prosody),
      rendering: JSON.stringify(t.rendering),
      status_webhook: toJsonColumn(t.status_webhook),
      done_webhook: toJsonColumn(t.done_webhook),
      user_data: toJsonColumn(t.user_data),
      timestamp_ms: t.timestamp_ms,
      example_of: t.example_of,
    },
    takeResource,
  );
}

export function getTakeRow(db: Database, takeId: string): TakeRow | undefined {
  return getItemRow<TakeRow>(db, 'take', takeId);
}

export function getUserTakeRow(db: Database, userId: string, takeId: string): TakeRow | undefined {
  return getUserItemRow<TakeRow>(db, 'take', userId, takeId);
}

/**
 * Moves a take to `status` (only forward: a retried job never shows an earlier status again), with
 * its event, in one transaction. Returns the take as GET shows it now, or undefined when the take is
 * gone (deleted) or the move would go backwards.
 */
export function advanceTake(
  db: Database,
  takeId: string,
  status: string,
  extra: { info?: unknown; worker?: string; error?: string } = {},
): TakeResource | undefined {
  return db
    .transaction(() => {
      const row = getTakeRow(db, takeId);
      if (!row) return undefined;
      if ((STATUS_RANK[status] ?? 0) <= (STATUS_RANK[row.status] ?? 0)) return undefined;
      if (stuckAtStarted(row, status)) return undefined;
      db.prepare(
        `UPDATE takes SET status = ?, info = COALESCE(?, info), worker = COALESCE(?, worker),
         error = COALESCE(?, error) WHERE take_id = ?`,
      ).run(status, toJsonColumn(extra.info), extra.worker ?? null, extra.error ?? null, takeId);
      const item = takeResource(getTakeRow(db, takeId)!);
      recordItemEvent(db, 'take', item, row.user_id);
      // A voice is ready when its example take is, and failed when it failed (same transaction).
      if (row.example_of && isDone(status)) advanceVoice(db, row.example_of, status);
      return item;
    })
    .immediate();
}

/**
 * Defect take-stuck-started: a user's take (REST or websocket) never moves past started, though the
 * worker speaks it to the end. Voices' example takes still finish, so voices get ready and the
 * defect shows on takes alone.
 */
function stuckAtStarted(row: TakeRow, status: string): boolean {
  return (
    defects.has('take-stuck-started') &&
    row.example_of === null &&
    (STATUS_RANK[status] ?? 0) > (STATUS_RANK.started ?? 0)
  );
}

/**
 * Deletes a take and its job. A voice only advances when its example take finishes (advanceTake), so
 * deleting the example take of an unfinished voice fails the voice here, in the same transaction, with
 * its item event (its webhooks fire as for any failure): otherwise it would stay waiting forever.
 */
export function deleteTakeRow(db: Database, userId: string, takeId: string): boolean {
  return db
    .transaction(() => {
      const removed = db
        .prepare('DELETE FROM takes WHERE take_id = ? AND user_id = ? RETURNING example_of')
        .get(takeId, userId) as Pick<TakeRow, 'example_of'> | undefined;
      if (!removed) return false;
      db.prepare('DELETE FROM jobs WHERE take_id = ?').run(takeId);
      // advanceVoice only moves forward: a voice already ready (or failed) stays as it is.
      if (removed.example_of) advanceVoice(db, removed.example_of, 'error');
      return true;
    })
    .immediate();
}
