/** The voices table: rows ↔ the Voice resource, status changes with their item events. */
import type { Database } from 'better-sqlite3';
import { defects } from '../defects/index.ts';
import { recordItemEvent } from '../events/item-events.ts';
import { fromJsonColumn, toJsonColumn } from './db.ts';
import { getItemRow, getUserItemRow, insertItemRow } from './item-rows.ts';
import { STATUS_RANK } from './status.ts';

export interface VoiceRow {
  voice_id: string;
  user_id: string;
  name: string;
  model: string;
  gender: string;
  default_style: string | null;
  default_prosody: string | null;
  description: string | null;
  example_take_id: string;
  status_webhook: string | null;
  done_webhook: string | null;
  status: string;
  timestamp_ms: number;
}

export type VoiceResource = Record<string, unknown> & { voice_id: string; status: string };

export function voiceResource(row: VoiceRow): VoiceResource {
  return {
    voice_id: row.voice_id,
    name: row.name,
    // Defect voice-model-embedded: the model is answered as an object (the model row joined in).
    model: defects.has('voice-model-embedded') ? { name: row.model } : row.model,
    gender: row.gender,
    // Defect default-style-filled: a voice without default_style shows ["default"].
    default_style:
      fromJsonColumn(row.default_style) ?? (defects.has('default-style-filled') ? ['default'] : null),
    default_prosody: fromJsonColumn(row.default_prosody),
    description: row.description,
    example_take_id: row.example_take_id,
    // The contract shows null in every response; the example take is fetched by example_take_id.
    example_take: null,
    status_webhook: fromJsonColumn(row.status_webhook),
    done_webhook: fromJsonColumn(row.done_webhook),
    status: row.status,
    // Defect voice-timestamp-microseconds: timestamp_ms in microseconds.
    timestamp_ms: defects.has('voice-timestamp-microseconds') ? row.timestamp_ms * 1000 : row.timestamp_ms,
  };
}

export interface NewVoice {
  voice_id: string;
  user_id: string;
  name: string;
  model: string;
  gender: string;
  default_style: string[] | null;
  default_prosody: Record<string, number> | null;
  description: string | null;
  example_take_id: string;
  status_webhook: unknown;
  done_webhook: unknown;
  timestamp_ms: number;
}

/** Inserts a voice in `waiting` with its creation event; call inside a transaction. */
export function insertVoice(db: Database, v: NewVoice): VoiceResource {
  return insertItemRow(
    db,
    'voice',
    {
      voice_id: v.voice_id,
      user_id: v.user_id,
      name: v.name,
      model: v.model,
      gender: v.gender,
      default_style: toJsonColumn(v.default_style),
      default_prosody: toJsonColumn(v.default_prosody),
      description: v.description,
      example_take_id: v.example_take_id,
      status_webhook: toJsonColumn(v.status_webhook),
      done_webhook: toJsonColumn(v.done_webhook),
      timestamp_ms: v.timestamp_ms,
    },
    voiceResource,
  );
}

export function getVoiceRow(db: Database, voiceId: string): VoiceRow | undefined {
  return getItemRow<VoiceRow>(db, 'voice', voiceId);
}

export function getUserVoiceRow(db: Database, userId: string, voiceId: string): VoiceRow | undefined {
  return getUserItemRow<VoiceRow>(db, 'voice', userId, voiceId);
}

/** Moves a voice forward to `status` with its event; call inside the transaction of the change. */
export function advanceVoice(db: Database, voiceId: string, status: string): VoiceResource | undefined {
  const row = getVoiceRow(db, voiceId);
  if (!row) return undefined;
  if ((STATUS_RANK[status] ?? 0) <= (STATUS_RANK[row.status] ?? 0)) return undefined;
  // Defect voice-never-ready: a voice whose training never finishes stays waiting.
  if (defects.has('voice-never-ready')) return undefined;
  db.prepare('UPDATE voices SET status = ? WHERE voice_id = ?').run(status, voiceId);
  const item = voiceResource(getVoiceRow(db, voiceId)!);
  recordItemEvent(db, 'voice', item, row.user_id);
  return item;
}

export interface VoiceChanges {
  name?: string;
  gender?: string;
  description?: string | null;
  default_style?: string[] | null;
  default_prosody?: Record<string, number> | null;
}

export function updateVoiceRow(
  db: Database,
  userId: string,
  voiceId: string,
  changes: VoiceChanges,
): boolean {
  const sets: string[] = [];
  const values: unknown[] = [];
  const set = (column: string, value: unknown) => {
    sets.push(`${column} = ?`);
    values.push(value);
  };
  if (changes.name !== undefined) set('name', changes.name);
  if (changes.gender !== undefined) set('gender', changes.gender);
  if (changes.description !== undefined) set('description', changes.description);
  if (changes.default_style !== undefined) set('default_style', toJsonColumn(changes.default_style));
  if (changes.default_prosody !== undefined) set('default_prosody', toJsonColumn(changes.default_prosody));
  if (sets.length === 0) return getUserVoiceRow(db, userId, voiceId) !== undefined;
  const result = db
    .prepare(`UPDATE voices SET ${sets.join(', ')} WHERE voice_id = ? AND user_id = ?`)
    .run(...values, voiceId, userId);
  return result.changes > 0;
}

export function deleteVoiceRow(db: Database, userId: string, voiceId: string): boolean {
  return db.prepare('DELETE FROM voices WHERE voice_id = ? AND user_id = ?').run(voiceId, userId).changes > 0;
}
