import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { planWebhookSink } from '../../src/client/webhook-sink.ts';
import { interpolate, loadConfigFile, parseConfigText } from '../../src/config/config-file.ts';
import { closestIds } from '../../src/config/requirement-selection.ts';
import {
  ConfigError,
  printableRun,
  type RunFlags,
  resolveCommandTarget,
  resolveRun,
  resolveRunConfig,
  resolveTargetFlags,
  TARGET_ENV,
} from '../../src/config/resolve.ts';
import { decodeRunPlan, encodeRunPlan, resolveRunPlan } from '../../src/harness/run-plan.ts';

const now = new Date('2026-11-21T10:20:30.456Z');

describe('run config', () => {
  test('no base url: the embedded target with defaults', () => {
    const c = resolveRunConfig({}, {}, now);
    expect(c).toMatchObject({
      target: 'embedded',
      baseUrl: '',
      profile: 'strict',
      only: [],
      concurrency: 8,
      keep: false,
      reportDir: 'reports/2026-11-21T10-20-30Z',
      timeouts: { requestMs: 15_000, readyMs: 45_000 },
    });
    expect(c.namePrefix).toBe(`speakcheck-${c.runId}-`);
  });

  test('flags override the environment; auth url defaults to the base url', () => {
    const c = resolveRunConfig(
      {
        baseUrl: 'http://127.0.0.1:8080/',
        email: 'f@x.y',
        password: 'flagpw',
        only: 'auth, takes',
        profile: 'lenient',
      },
      {
        SPEAK_BASE_URL: 'http://127.0.0.1:1',
        SPEAK_EMAIL: 'env@x.y',
        SPEAK_PASSWORD: 'envpw',
        SPEAK_CONCURRENCY: '3',
      },
      now,
    );
    expect(c).toMatchObject({
      target: 'remote',
      baseUrl: 'http://127.0.0.1:8080',
      authUrl: 'http://127.0.0.1:8080',
      email: 'f@x.y',
      password: 'flagpw',
      only: ['auth', 'takes'],
      profile: 'lenient',
      concurrency: 3,
    });
  });

  test('expiry: lifetimes from flags over SPEAK_* variables, a 20 s wait bound by default', () => {
    expect(resolveRunConfig({}, {}, now).expiry).toEqual({ maxWaitS: 20, leewayS: 300, mode: 'quick' });
  });

  test('--replay-path without --seed is refused with one sentence; with it, kept', () => {
    expect(() => resolveRunConfig({ replayPath: '4:2@AAAB' }, {}, now)).toThrow(
      /^--replay-path replays a sequence of one seed's exploration: give the --seed the report names with it\.$/,
    );
    expect(resolveRunConfig({ replayPath: '4:2@AAAB', seed: '5' }, {}, now).replayPath).toBe('4:2@AAAB');
    const env = {
      SPEAK_ACCESS_TOKEN_LIFETIME: '900',
      SPEAK_WS_URL_LIFETIME: '3600',
      SPEAK_MAX_EXPIRY_WAIT: '30',
    };
    expect(resolveRunConfig({}, env, now).expiry).toEqual({
      accessTokenLifetimeS: 900,
      wsUrlLifetimeS: 3600,
      maxWaitS: 30,
      leewayS: 300,
      mode: 'quick',
    });
    const flags = { accessTokenLifetime: '5', wsUrlLifetime: '6', maxExpiryWait: '10', expiryLeeway: '0' };
    expect(resolveRunConfig(flags, env, now).expiry).toEqual({
      accessTokenLifetimeS: 5,
      wsUrlLifetimeS: 6,
      maxWaitS: 10,
      leewayS: 0,
      mode: 'quick',
    });
    expect(() => resolveRunConfig({ expiryLeeway: '-1' }, {}, now)).toThrow(
      /--expiry-leeway "-1" must be a whole number, 0 or more/,
    );
    expect(() => resolveRunConfig({ accessTokenLifetime: '0' }, {}, now)).toThrow(
      /--access-token-lifetime "0" must be a positive whole number/,
    );
    expect(() => resolveRunConfig({ wsUrlLifetime: '1h' }, {}, now)).toThrow(/--ws-url-lifetime "1h"/);
  });

  test('--expiry: the profile decides (acceptance: full), the flag over SPEAK_EXPIRY over the file', () => {
    const mode = (flags: RunFlags, env: Record<string, string> = {}, file: RunFlags = {}) =>
      resolveRunConfig(flags, env, now, file).expiry.mode;
    expect(mode({})).toBe('quick');
    expect(mode({ profile: 'lenient' })).toBe('quick');
    expect(mode({ profile: 'acceptance' })).toBe('full');
    expect(mode({ profile: 'acceptance', expiry: 'quick' })).toBe('quick');
    expect(mode({}, { SPEAK_EXPIRY: 'full' })).toBe('full');
    expect(mode({ expiry: 'quick' }, { SPEAK_EXPIRY: 'full' })).toBe('quick');
    expect(mode({}, {}, { expiry: 'full' })).toBe('full');
    expect(() => mode({ expiry: 'slow' })).toThrow(/--expiry "slow" must be quick or full/);
    expect(resolveRunConfig({ signedUrlLifetime: '15' }, {}, now).expiry.signedUrlLifetimeS).toBe(15);
    expect(resolveRunConfig({}, { SPEAK_PROFILE: 'acceptance' }, now).profile).toBe('acceptance');
  });

  test('--webhook-listen: HOST:PORT or PORT, the flag over SPEAK_WEBHOOK_LISTEN, absent by default', () => {
    expect(resolveRunConfig({}, {}, now).webhookListen).toBeUndefined();
    const env = { SPEAK_WEBHOOK_LISTEN: '127.0.0.1:9100' };
    expect(resolveRunConfig({}, env, now).webhookListen).toEqual({ host: '127.0.0.1', port: 9100 });
    expect(resolveRunConfig({ webhookListen: '8900' }, env, now).webhookListen).toEqual({ port: 8900 });
    expect(resolveRunConfig({ webhookListen: '[::1]:0' }, env, now).webhookListen).toEqual({
      host: '::1',
      port: 0,
    });
    // The sink plan follows the resolved address, not the environment it was resolved from.
    const config = resolveRunConfig({ webhookListen: '127.0.0.2:8901' }, env, now);
    expect(planWebhookSink({ ...config, baseUrl: 'http://127.0.0.1:8080' }, env)).toEqual({
      reachable: true,
      options: { host: '127.0.0.2', port: 8901 },
    });
  });

  test.each([
    [{ baseUrl: 'ftp://x' }, /--base-url "ftp:\/\/x" must be an http/],
    [{ baseUrl: 'http://127.0.0.1:1', email: 'a@b.c' }, /--password is missing/],
    [{ baseUrl: 'http://127.0.0.1:1' }, /needs credentials/],
    [{ baseUrl: 'http://127.0.0.1:1', token: 't', email: 'a', password: 'b' }, /either --token or --email/],
    [{ baseUrl: 'http://127.0.0.1:1', token: 't', only: 'auth,voicez' }, /unknown area voicez/],
    [
      { baseUrl: 'http://127.0.0.1:1', token: 't', concurrency: '0' },
      /--concurrency "0" must be a positive whole number/,
    ],
    [
      { baseUrl: 'http://127.0.0.1:1', token: 't', profile: 'picky' },
      /--profile "picky" must be strict, lenient, acceptance or sdk/,
    ],
    [{ target: 'remote' }, /--target remote needs --base-url/],
    [{ baseUrl: 'http://u:p@127.0.0.1:1', token: 't' }, /must not carry credentials/],
    [{ webhookListen: '127.0.0.1:' }, /--webhook-listen "127.0.0.1:" must be HOST:PORT or PORT/],
    [{ webhookListen: 'localhost:70000' }, /port from 0 to 65535/],
  ])('rejects %j with a clear message', (flags, message) => {
    expect(() => resolveRunConfig(flags, {}, now)).toThrow(ConfigError);
    expect(() => resolveRunConfig(flags, {}, now)).toThrow(message);
  });
});

describe('--requirement', () => {
  test('absent: no selection, every area', () => {
    expect(resolveRunConfig({}, {}, now)).toMatchObject({ requirements: [], only: [] });
  });

  test('comma-separated, repeatable, case and spaces forgiven, duplicates dropped; the areas follow', () => {
    const c = resolveRunConfig(
      { requirement: ['auth-refresh-rotates, VERSION-NO-TOKEN', 'AUTH-REFRESH-ROTATES'] },
      {},
      now,
    );
    expect(c.requirements).toEqual(['AUTH-REFRESH-ROTATES', 'VERSION-NO-TOKEN']);
    expect(c.only).toEqual(['auth', 'version']);
  });

  test('the flag overrides SPEAK_REQUIREMENTS; the variable alone is used', () => {
    const env = { SPEAK_REQUIREMENTS: 'VERSION-NO-TOKEN' };
    expect(resolveRunConfig({ requirement: ['AUTH-REFRESH-ROTATES'] }, env, now).requirements).toEqual([
      'AUTH-REFRESH-ROTATES',
    ]);
    expect(resolveRunConfig({}, env, now)).toMatchObject({
      requirements: ['VERSION-NO-TOKEN'],
      only: ['version'],
    });
  });

  test('with --only: the given areas stay, when they hold every selected requirement', () => {
    const c = resolveRunConfig({ requirement: ['VERSION-NO-TOKEN'], only: 'auth,version' }, {}, now);
    expect(c).toMatchObject({ requirements: ['VERSION-NO-TOKEN'], only: ['auth', 'version'] });
  });

  test('an id outside --only is an error naming the id and its area', () => {
    const resolve = () =>
      resolveRunConfig({ requirement: ['AUTH-REFRESH-ROTATES'], only: 'models' }, {}, now);
    expect(resolve).toThrow(ConfigError);
    expect(resolve).toThrow(/--requirement AUTH-REFRESH-ROTATES is outside --only models \(area auth\)/);
  });

  test('an unknown id is an error naming it and suggesting the closest known ids', () => {
    const resolve = () =>
      resolveRunConfig({ requirement: ['AUTH-REFRESH-ROTATE,VERSION-NO-TOKEN'] }, {}, now);
    expect(resolve).toThrow(ConfigError);
    expect(resolve).toThrow(/unknown requirement id AUTH-REFRESH-ROTATE \(did you mean AUTH-REFRESH-ROTATES/);
    // From the environment too, and nothing suggested when nothing is near.
    expect(() => resolveRunConfig({}, { SPEAK_REQUIREMENTS: 'QQQQQQQQQQQQQQ-ZZZZ' }, now)).toThrow(
      /unknown requirement id QQQQQQQQQQQQQQ-ZZZZ\. /,
    );
  });

  test('closestIds: containment first, then small edit distances only', () => {
    expect(closestIds('AUTH-REFRESH-ROTATE')[0]).toBe('AUTH-REFRESH-ROTATES');
    expect(closestIds('VERSION-NO-TOKN')).toContain('VERSION-NO-TOKEN');
    expect(closestIds('ZZZZZZZZZZZZZZZZZZZZ')).toEqual([]);
  });

  test('the selection travels to the suites with the rest of the config', () => {
    const c = resolveRunConfig(
      { requirement: ['VERSION-NO-TOKEN'], baseUrl: 'http://127.0.0.1:1', token: 't' },
      {},
      now,
    );
    const plan = resolveRunPlan(c, undefined, undefined);
    expect(decodeRunPlan(encodeRunPlan(plan)).requirements).toEqual(['VERSION-NO-TOKEN']);
    // A plan written without the field (an older run) selects nothing.
    const { requirements: _dropped, ...older } = plan;
    expect(decodeRunPlan(JSON.stringify(older)).requirements).toEqual([]);
  });
});

describe('config file', () => {
  const remote = { baseUrl: 'http://file.example:1', email: 'file@x.y', password: 'filepw' };

  test('precedence: flags > environment > file > defaults, option by option', () => {
    const file = { ...remote, profile: 'lenient', concurrency: '3', reportDir: 'from-file', keep: true };
    const env = { SPEAK_CONCURRENCY: '5', SPEAK_PROFILE: 'strict', SPEAK_KEEP: '0' };
    const c = resolveRunConfig({ concurrency: '7' }, env, now, file);
    expect(c.concurrency).toBe(7); // flag over env over file
    expect(c.profile).toBe('strict'); // env over file
    expect(c.keep).toBe(false); // env SPEAK_KEEP=0 over the file's true
    expect(c.reportDir).toBe('from-file'); // file over the default
    expect(c.baseUrl).toBe('http://file.example:1');
    expect(c.target).toBe('remote');
    expect(c.timeouts.requestMs).toBe(15_000); // the default where no layer says
    expect(resolveRunConfig({}, {}, now, file).keep).toBe(true);
    expect(resolveRunConfig({}, {}, now, { ...remote, requirement: ['AUTH-LOGIN-OK'] }).requirements).toEqual(
      ['AUTH-LOGIN-OK'],
    );
  });

  test('credentials from the environment override the file; mixing token and password is still refused', () => {
    const c = resolveRunConfig({}, { SPEAK_PASSWORD: 'envpw' }, now, remote);
    expect(c.password).toBe('envpw');
    expect(() => resolveRunConfig({}, { SPEAK_TOKEN: 'tok-123456' }, now, remote)).toThrow(
      'either --token or --email/--password',
    );
  });

  /** `${NAME}` as written in a config file. */
  const ref = (name: string) => `\${${name}}`;

  test('an env reference comes from the environment; an unset one is a precise error', () => {
    expect(interpolate(`Bearer ${ref('TOK')}-x`, 'f: token', { TOK: 'abc' })).toBe('Bearer abc-x');
    expect(() => interpolate(ref('MISSING'), 'f.yaml: password', {})).toThrow(
      `f.yaml: password uses ${ref('MISSING')}, which is not set in the environment.`,
    );
    const values = parseConfigText(
      `baseUrl: http://127.0.0.1:9\npassword: ${ref('PW')}\nonly: [auth, version]\nrequestTimeout: 5000\nkeep: true\n`,
      'c.yaml',
      { PW: 's3cret' },
    );
    expect(values).toEqual({
      baseUrl: 'http://127.0.0.1:9',
      password: 's3cret',
      only: 'auth,version',
      requestTimeout: '5000',
      keep: true,
    });
  });

  test('unknown keys, wrong types and bad syntax name the file and the key', () => {
    expect(() => parseConfigText('{"base_url": "x"}', 'c.json', {})).toThrow(
      /c\.json: unknown key "base_url"/,
    );
    expect(() => parseConfigText('{"keep": "yes"}', 'c.json', {})).toThrow(
      'c.json: keep must be true or false.',
    );
    expect(() => parseConfigText('{"profile": ["a"]}', 'c.json', {})).toThrow('must be a single value');
    expect(() => parseConfigText('{nope', 'c.json', {})).toThrow(/c\.json does not parse/);
    expect(() => parseConfigText('[1]', 'c.yaml', {})).toThrow(ConfigError);
  });

  test('found in the working directory (json before yaml); --config names one; a missing one is an error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'speakcheck-config-'));
    try {
      expect(loadConfigFile(undefined, {}, dir)).toBeUndefined();
      writeFileSync(join(dir, 'speakcheck.config.yaml'), 'profile: lenient\n');
      expect(loadConfigFile(undefined, {}, dir)?.values).toEqual({ profile: 'lenient' });
      writeFileSync(join(dir, 'speakcheck.config.json'), '{"profile": "strict"}');
      expect(loadConfigFile(undefined, {}, dir)?.values).toEqual({ profile: 'strict' });
      writeFileSync(join(dir, 'other.json'), '{"concurrency": 2}');
      expect(loadConfigFile('other.json', {}, dir)?.values).toEqual({ concurrency: '2' });
      expect(() => loadConfigFile('absent.yaml', {}, dir)).toThrow('--config absent.yaml: no such file.');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('--print-config shows no secret', () => {
    const shown = JSON.stringify(printableRun(resolveRun({}, {}, now, remote), 'x.yaml'));
    expect(shown).not.toContain('filepw');
    expect(shown).toContain('"email":"file@x.y"');
    const withToken = resolveRun({ baseUrl: 'http://a:1', token: 'tok-secret-1' }, {}, now);
    expect(JSON.stringify(printableRun(withToken, undefined))).not.toContain('tok-secret-1');
  });
});

describe('the second identity (security area: customer B)', () => {
  const base = { baseUrl: 'http://a:1', token: 't-first-1' };
  test('flags > env > file, email/password or a token', () => {
    expect(resolveRunConfig({ ...base, secondToken: 'flag-tok' }, {}, now).second).toEqual({
      token: 'flag-tok',
    });
    const env = { SPEAK_SECOND_EMAIL: 'b@x.y', SPEAK_SECOND_PASSWORD: 'env-pw-2' };
    expect(resolveRunConfig(base, env, now).second).toEqual({ email: 'b@x.y', password: 'env-pw-2' });
    const file = { secondEmail: 'f@x.y', secondPassword: 'file-pw-2' };
    expect(resolveRunConfig(base, {}, now, file).second).toEqual({ email: 'f@x.y', password: 'file-pw-2' });
    expect(resolveRunConfig(base, {}, now).second).toBeUndefined();
  });

  test('checked like the first identity: one form, both halves', () => {
    expect(() => resolveRunConfig({ ...base, secondToken: 't', secondEmail: 'b@x.y' }, {}, now)).toThrow(
      'give either --second-token or --second-email/--second-password, not both.',
    );
    expect(() => resolveRunConfig({ ...base, secondEmail: 'b@x.y' }, {}, now)).toThrow(
      '--second-email and --second-password go together: --second-password is missing.',
    );
    expect(() => resolveRunConfig({ ...base, secondToken: 't-first-1' }, {}, now)).toThrow(
      'the second identity (--second-token) must be another account than the first (--token).',
    );
    const first = { baseUrl: 'http://a:1', email: 'A@x.y', password: 'pw-a-1' };
    expect(() =>
      resolveRunConfig({ ...first, secondEmail: 'a@x.y', secondPassword: 'pw-b-1' }, {}, now),
    ).toThrow('the second identity (--second-email) must be another account than the first (--email).');
  });

  test('a config file may name it (an environment variable for the secret), and --print-config redacts it', () => {
    const values = parseConfigText(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the config file's own syntax
      'secondEmail: b@x.y\nsecondPassword: ${B_PW}\n',
      'speakcheck.config.yaml',
      { B_PW: 'sec-pw-22' },
    );
    const c = resolveRunConfig(base, {}, now, values);
    expect(c.second).toEqual({ email: 'b@x.y', password: 'sec-pw-22' });
    const shown = JSON.stringify(printableRun(resolveRun(base, {}, now, values), undefined));
    expect(shown).not.toContain('sec-pw-22');
    expect(shown).toContain('"secondEmail":"b@x.y"');
    const withToken = resolveRun({ ...base, secondToken: 'sec-tok-33' }, {}, now);
    expect(JSON.stringify(printableRun(withToken, undefined))).not.toContain('sec-tok-33');
  });
});

describe('one resolution for every command (run, load, perf --interleave)', () => {
  test('the same SPEAK_* variables: load reads SPEAK_AUTH_URL (it read SPEAKCHECK_AUTH_URL before)', () => {
    expect(TARGET_ENV.authUrl).toBe('SPEAK_AUTH_URL');
    const env = { SPEAK_AUTH_URL: 'http://auth.example:2/', SPEAKCHECK_AUTH_URL: 'http://wrong.example:3' };
    expect(resolveTargetFlags({}, env).authUrl).toBe('http://auth.example:2');
    expect(resolveRunConfig({ baseUrl: 'http://a:1', token: 't' }, env, now).authUrl).toBe(
      'http://auth.example:2',
    );
  });

  test('flags > environment > file, option by option; URLs checked; nothing invented', () => {
    const file = { baseUrl: 'http://file.example:1', email: 'file@x.y', password: 'filepw', model: 'm-file' };
    const resolved = resolveTargetFlags({ email: 'flag@x.y' }, { SPEAK_PASSWORD: 'envpw' }, file);
    expect(resolved).toEqual({
      baseUrl: 'http://file.example:1',
      email: 'flag@x.y',
      password: 'envpw',
      model: 'm-file',
    });
    expect(resolveTargetFlags({}, {})).toEqual({});
    expect(() => resolveTargetFlags({ authUrl: 'ftp://x' }, {})).toThrow(
      '--auth-url "ftp://x" must be an http',
    );
  });

  test('the config file is found as run finds it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'speakcheck-config-'));
    try {
      writeFileSync(
        join(dir, 'speakcheck.config.yaml'),
        'baseUrl: http://file.example:1\nprofile: lenient\n',
      );
      const { target, file } = resolveCommandTarget({}, { SPEAK_TOKEN: 'tok' }, dir);
      expect(target).toEqual({ baseUrl: 'http://file.example:1', token: 'tok' });
      expect(file?.path).toBe(join(dir, 'speakcheck.config.yaml'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('--max-rps and --ca-file (a hosted server)', () => {
  const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

  test('--max-rps: flag > SPEAK_MAX_RPS > file key maxRps; fractions allowed; absent: unpaced', () => {
    expect(resolveRunConfig({}, {}, now).maxRps).toBeUndefined();
    expect(resolveRunConfig({}, { SPEAK_MAX_RPS: '0.5' }, now).maxRps).toBe(0.5);
    expect(resolveRunConfig({ maxRps: '15' }, { SPEAK_MAX_RPS: '5' }, now).maxRps).toBe(15);
    const file = parseConfigText('maxRps: 12\n', 'speakcheck.config.yaml', {});
    expect(resolveRunConfig({}, {}, now, file).maxRps).toBe(12);
    for (const bad of ['0', '-3', 'fast', '1e3'])
      expect(() => resolveRunConfig({ maxRps: bad }, {}, now), bad).toThrow(
        `--max-rps "${bad}" must be a positive number of requests per second`,
      );
  });

  test('--ca-file: an absolute path to a PEM; unreadable or not PEM is a usage error naming the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'speakcheck-ca-'));
    try {
      writeFileSync(join(dir, 'ca.pem'), PEM);
      writeFileSync(join(dir, 'not.pem'), 'hello');
      expect(resolveRunConfig({ caFile: join(dir, 'ca.pem') }, {}, now).caFile).toBe(join(dir, 'ca.pem'));
      expect(resolveRunConfig({}, { SPEAK_CA_FILE: join(dir, 'ca.pem') }, now).caFile).toBe(
        join(dir, 'ca.pem'),
      );
      expect(() => resolveRunConfig({ caFile: join(dir, 'missing.pem') }, {}, now)).toThrow(
        /--ca-file .*missing\.pem: cannot read it \(ENOENT\)\./,
      );
      expect(() => resolveRunConfig({ caFile: join(dir, 'not.pem') }, {}, now)).toThrow(
        /--ca-file .*not\.pem: it holds no PEM certificate/,
      );
      expect(parseConfigText('caFile: ca.pem\n', 'x.yaml', {})).toEqual({ caFile: 'ca.pem' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
