"""The vendor's public Python SDK (`daisys` from PyPI), unchanged, against a running reference stack.

Run by scripts/sdk-interop.sh (which makes the venv and starts the stack); reads SPEAK_BASE_URL,
SPEAK_EMAIL, SPEAK_PASSWORD and SPEAK_ACCESS_TOKEN_TTL (the stack's --access-token-ttl, short so the
SDK has to refresh). Each step prints one line `ok <step>: <what it saw>`; the first failure prints
`FAIL <step>: <why>` and exits 1. Nothing here works around the SDK: where it and the stack disagree,
the stack is what must change.
"""

import os
import sys
import time
import traceback

import httpx
from daisys import DaisysAPI
from daisys.v1.speak import StreamMode, StreamOptions, VoiceGender

BASE = os.environ['SPEAK_BASE_URL'].rstrip('/')
EMAIL = os.environ['SPEAK_EMAIL']
PASSWORD = os.environ['SPEAK_PASSWORD']
TOKEN_TTL_S = float(os.environ.get('SPEAK_ACCESS_TOKEN_TTL', '4'))
MODELS = ('english-gb-v2.1', 'theatrical-v2')
TWO_SENTENCES = 'The reference stack speaks to the vendor SDK. Both sentences arrive in order.'
CHUNKS_BOUND_S = 3.0
MAGIC = {
    'wav': lambda b: b[:4] == b'RIFF' and b[8:12] == b'WAVE',
    'mp3': lambda b: b[:3] == b'ID3' or (len(b) > 1 and b[0] == 0xFF and b[1] & 0xE0 == 0xE0),
    'm4a': lambda b: b[4:8] == b'ftyp',
    'flac': lambda b: b[:4] == b'fLaC',
    'webm': lambda b: b[:4] == b'\x1a\x45\xdf\xa3',
}


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def step(name, fn):
    try:
        seen = fn()
    except Failure as error:
        print(f'FAIL {name}: {error}', flush=True)
        sys.exit(1)
    except Exception as error:  # the SDK's own exceptions: the stack said something it did not expect
        print(f'FAIL {name}: {type(error).__name__}: {error}', flush=True)
        traceback.print_exc()
        sys.exit(1)
    print(f'ok {name}: {seen}', flush=True)
    return seen


def wav_parts(items):
    """Rebuilds the parts from iter_request's (take_id, take, header, audio) items, in order."""
    parts, statuses, current = [], [], None
    for _take_id, take, header, audio in items:
        if take is not None:
            statuses.append(take.status.value)
        if header is not None:
            current = {'header': header, 'audio': b''}
            parts.append(current)
        if audio:
            check(current is not None, 'audio arrived before any part header')
            current['audio'] += audio
    return parts, statuses


def main():
    client = DaisysAPI('speak', 'v1', email=EMAIL, password=PASSWORD, daisys_url=BASE, auth_url=BASE).get_client()
    state = {}

    def login():
        check(client.login() is True, 'login did not answer True')
        check(client.access_token and client.refresh_token, 'no token pair after login')
        return 'token pair received'

    def version():
        v = client.version()
        return f'version {v.version}.{v.minor}'

    def models():
        listed = client.get_models()
        names = [m.name for m in listed]
        for name in MODELS:
            check(name in names, f'model {name} not listed (listed: {names})')
            check(client.get_model(name).name == name, f'get_model({name}) answered another model')
        return f'{names}'

    def voice_generate():
        voice = client.generate_voice(name='sdk-interop', model=MODELS[0], gender=VoiceGender.FEMALE, wait=True)
        check(voice.status.value == 'ready', f'voice status {voice.status}')
        check(voice.model == MODELS[0], f'voice model {voice.model}, the vendor examples expect {MODELS[0]}')
        state['voice'] = voice
        return f'{voice.voice_id} {voice.model} {voice.status.value}'

    def voice_update():
        voice_id = state['voice'].voice_id
        check(client.update_voice(voice_id, name='sdk-interop-renamed', gender=VoiceGender.MALE) is True,
              'update_voice did not answer True')
        after = client.get_voice(voice_id)
        check(after.name == 'sdk-interop-renamed' and after.gender == VoiceGender.MALE,
              f'after update: name {after.name}, gender {after.gender}')
        return f'renamed, gender {after.gender.value}'

    def take_generate():
        take = client.generate_take(voice_id=state['voice'].voice_id, text=TWO_SENTENCES, wait=True)
        check(take.status.value == 'ready', f'take status {take.status}')
        check(take.info is not None and take.info.duration > 0, f'take info {take.info}')
        state['take'] = take
        return f'{take.take_id} ready, {take.info.duration} samples at {take.info.audio_rate} Hz'

    def audio_formats():
        take = state['take']
        sizes = []
        for fmt, looks_right in MAGIC.items():
            audio = client.get_take_audio(take.take_id, format=fmt)
            check(looks_right(audio), f'{fmt}: {len(audio)} bytes that do not look like {fmt}: {audio[:40]!r}')
            if fmt == 'wav':
                check(len(audio) == 44 + take.info.duration * 2,
                      f'wav of {len(audio)} bytes for {take.info.duration} samples')
            sizes.append(f'{fmt} {len(audio)} B')
        return ', '.join(sizes)

    def audio_url():
        url = client.get_take_audio_url(state['take'].take_id)
        check('X-Amz-Signature' in url, f'no X-Amz-Signature in {url.split("?")[0]}?…')
        plain = httpx.get(url, timeout=30)
        check(plain.status_code == 200 and plain.content[:4] == b'RIFF', f'the URL answered {plain.status_code}')
        return f'signed URL on {httpx.URL(url).host}:{httpx.URL(url).port} answers a WAV without a token'

    def websocket(mode):
        def run():
            with client.websocket(model=MODELS[0]) as ws:
                started = time.monotonic()
                request_id = ws.generate_take(voice_id=state['voice'].voice_id, text=TWO_SENTENCES,
                                              stream_options=StreamOptions(mode=mode))
                items = list(ws.iter_request(request_id))
                elapsed = time.monotonic() - started
            parts, statuses = wav_parts(items)
            check(statuses and statuses[-1] == 'ready', f'statuses {statuses}')
            check(len(parts) == 2, f'{len(parts)} part(s) for two sentences')
            for i, part in enumerate(parts):
                header = part['header']
                check(header[:4] == b'RIFF' and header[8:12] == b'WAVE', f'part {i}: header {header[:12]!r}')
                data_bytes = int.from_bytes(header[-4:], 'little')
                check(data_bytes == len(part['audio']),
                      f'part {i}: the header says {data_bytes} bytes, the part holds {len(part["audio"])}')
            if mode == StreamMode.CHUNKS:
                check(elapsed <= CHUNKS_BOUND_S,
                      f'iter_request took {elapsed:.2f} s (bound {CHUNKS_BOUND_S} s): the iterator waits for chunk 0')
            return f'{len(items)} items, {len(parts)} parts, statuses {" → ".join(statuses)}, {elapsed:.2f} s'
        return run

    def token_refresh():
        logins = []
        original_login = client.login

        def counting_login(*args, **kwargs):
            logins.append(1)
            return original_login(*args, **kwargs)

        client.login = counting_login
        before = (client.access_token, client.refresh_token)
        time.sleep(TOKEN_TTL_S + 1)
        names = [m.name for m in client.get_models()]
        check(names, 'no models after the access token expired')
        check(client.access_token != before[0], 'the access token did not change after it expired')
        check(client.refresh_token != before[1], 'the refresh token did not rotate')
        check(not logins, 'the SDK had to log in again: refresh with the expired access token failed')
        client.login = original_login
        return f'expired after {TOKEN_TTL_S:g} s; refreshed without logging in again'

    def voice_delete():
        voice_id = state['voice'].voice_id
        check(client.delete_take(state['take'].take_id) is True, 'delete_take did not answer True')
        check(client.delete_voice(voice_id) is True, 'delete_voice did not answer True')
        try:
            client.get_voice(voice_id)
        except httpx.HTTPStatusError as error:
            check(error.response.status_code == 404, f'a deleted voice answered {error.response.status_code}')
            return 'take and voice deleted; the voice is 404'
        raise Failure('a deleted voice is still there')

    step('login', login)
    step('version', version)
    step('models', models)
    step('voice generate', voice_generate)
    step('voice update', voice_update)
    step('take generate', take_generate)
    step('get_take_audio, every format', audio_formats)
    step('get_take_audio_url', audio_url)
    step('websocket iter_request, parts mode', websocket(StreamMode.PARTS))
    step('websocket iter_request, chunks mode', websocket(StreamMode.CHUNKS))
    step('token refresh', token_refresh)
    step('voice delete', voice_delete)
    client.close()  # logs out (revokes the refresh token)
    print('daisys SDK interop: all steps passed', flush=True)


if __name__ == '__main__':
    main()
