/**
 * expectSchema: validates a value against a named schema of schemas/ with validators compiled once
 * per process. A failure names the JSON pointer, what the schema expects there and what was found.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { schemas, sharedAjv } from '../../schemas/index.ts';
import { Finding } from '../checks/finding.ts';

export interface SchemaProblem {
  /** JSON pointer into the value, `''` for the value itself. */
  pointer: string;
  expected: string;
  actual: string;
}

/** A Finding (src/checks/finding.ts) whose facts are the first problem; all problems are listed. */
export class SchemaFinding extends Finding {
  override readonly kind = 'schema';
  constructor(
    readonly schema: string,
    readonly what: string,
    readonly problems: SchemaProblem[],
  ) {
    super(formatFinding(schema, what, problems), {
      where: problems[0]?.pointer || '(root)',
      expected: problems[0]?.expected,
      actual: problems[0]?.actual,
    });
  }
  /** The first problem, for callers that only want one. */
  get pointer(): string {
    return this.problems[0]?.pointer ?? '';
  }
  get expected(): string {
    return this.problems[0]?.expected ?? '';
  }
  get actual(): string {
    return this.problems[0]?.actual ?? '';
  }
}

const MAX_PROBLEMS_SHOWN = 5;

function formatFinding(schema: string, what: string, problems: SchemaProblem[]): string {
  const lines = problems
    .slice(0, MAX_PROBLEMS_SHOWN)
    .map((p) => `at ${p.pointer || '(root)'}: expected ${p.expected}, found ${p.actual}`);
  const more =
    problems.length > MAX_PROBLEMS_SHOWN ? `; and ${problems.length - MAX_PROBLEMS_SHOWN} more` : '';
  return `${what} does not match schema ${schema}: ${lines.join('; ')}${more}`;
}

let ajv: ReturnType<typeof sharedAjv> | undefined;
const validators = new Map<string, ValidateFunction>();

function validatorFor(name: string): ValidateFunction {
  let validate = validators.get(name);
  if (validate) return validate;
  const schema = schemas[name];
  if (!schema) {
    throw new Error(
      `expectSchema: no schema named "${name}" in schemas/ (known: ${Object.keys(schemas).join(', ')})`,
    );
  }
  ajv ??= sharedAjv();
  validate = ajv.getSchema(schema.$id) ?? ajv.compile(schema);
  validators.set(name, validate);
  return validate;
}

export function expectSchema(name: string, value: unknown, what = 'the value'): void {
  const validate = validatorFor(name);
  if (validate(value)) return;
  throw new SchemaFinding(name, what, schemaProblems(validate.errors ?? [], value));
}

/** Ajv's errors turned into pointer / expected / actual, keeping the most specific ones. */
export function schemaProblems(errors: readonly ErrorObject[], value: unknown): SchemaProblem[] {
  // An anyOf/oneOf failure is explained by its branches' errors; show it alone only when nothing deeper exists.
  const specific = errors.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf' && e.keyword !== 'if');
  const chosen = specific.length > 0 ? specific : [...errors];
  const problems: SchemaProblem[] = [];
  const seen = new Set<string>();
  for (const error of chosen) {
    const problem = toProblem(error, value);
    const key = `${problem.pointer}|${problem.expected}`;
    if (!seen.has(key)) {
      seen.add(key);
      problems.push(problem);
    }
  }
  return problems;
}

function toProblem(error: ErrorObject, root: unknown): SchemaProblem {
  const params = error.params as Record<string, unknown>;
  const pointer = error.instancePath;
  switch (error.keyword) {
    case 'required':
      return {
        pointer: `${pointer}/${escapePointer(String(params.missingProperty))}`,
        expected: 'a required property',
        actual: 'nothing (missing)',
      };
    case 'additionalProperties':
      return {
        pointer: `${pointer}/${escapePointer(String(params.additionalProperty))}`,
        expected: 'no such property',
        actual: show(valueAt(root, `${pointer}/${escapePointer(String(params.additionalProperty))}`)),
      };
    case 'type':
      return { pointer, expected: `type ${String(params.type)}`, actual: show(valueAt(root, pointer)) };
    case 'enum':
      return {
        pointer,
        expected: `one of ${JSON.stringify(params.allowedValues)}`,
        actual: show(valueAt(root, pointer)),
      };
    case 'const':
      return {
        pointer,
        expected: `exactly ${JSON.stringify(params.allowedValue)}`,
        actual: show(valueAt(root, pointer)),
      };
    default:
      return {
        pointer,
        expected: `a value that ${error.message ?? error.keyword}`,
        actual: show(valueAt(root, pointer)),
      };
  }
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function valueAt(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  let current: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

function show(value: unknown): string {
  if (value === undefined) return 'nothing (missing)';
  const kind = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  const json = JSON.stringify(value) ?? String(value);
  const excerpt = json.length > 120 ? `${json.slice(0, 120)}…` : json;
  return `${excerpt} (${kind})`;
}
