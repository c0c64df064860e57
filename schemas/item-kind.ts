/**
 * The contract's two kinds of item a user makes, reads, lists and deletes: takes and voices. Their
 * routes are `/v1/speak/{kind}s`, both move through the same statuses and may carry a webhook; the
 * harness (what it made, what it deletes, what a webhook call is about) and the reference (its rows,
 * events and outbox) name them with this one type.
 */
export type ItemKind = 'take' | 'voice';
