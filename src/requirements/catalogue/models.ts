import type { RequirementDeclaration } from '../types.ts';
import { requirementsIn } from './requirement.ts';

const r = requirementsIn('models');

/** speak-v1.md: Resources (Model, Prosody), Endpoints (Models). */
export const requirements: RequirementDeclaration[] = [
  r('MODELS-LIST', 'Endpoints: Models', 'MUST', 'GET /v1/speak/models returns an array of Model.', {
    quote: '| GET | /v1/speak/models | none | array of Model |',
  }),
  r('MODELS-AT-LEAST-ONE', 'What the service does', 'MUST', 'A user has access to one or more models.', {
    quote: 'A user has access to one or more **models**.',
  }),
  r(
    'MODELS-GET',
    'Endpoints: Models',
    'MUST',
    'GET /v1/speak/models/{name} returns one Model (an object, not an array).',
    {
      quote: '| GET | /v1/speak/models/{name} | none | one Model |',
    },
  ),
  r(
    'MODELS-LIST-GET-AGREE',
    'Endpoints: Models; Resources: Model',
    'MUST',
    '`name` identifies a model: GET /v1/speak/models/{name} returns the same model the list holds under that name.',
    {
      quote:
        '| name | string | Identifier used when a model is referenced, for example in voice generation and in the websocket URL request. |',
    },
  ),
  r(
    'MODEL-FIELD-TYPES',
    'Resources: Model',
    'MUST',
    'Model fields: name string, displayname string, flags array of string (may be empty), languages array of string, genders array of string, styles array of array of string, prosody_types array of string.',
    {
      quote: '| displayname | string | Human-readable name. |',
    },
  ),
  r(
    'MODEL-GENDERS-USABLE',
    'Resources: Model',
    'MUST',
    '`genders` are the allowed voice genders for the model: a voice can be generated with each of them.',
    {
      quote: '| genders | array of string | Allowed voice genders for the model. |',
    },
  ),
  r(
    'MODEL-LANGUAGES-USABLE',
    'Resources: Model; Resources: Take',
    'MUST',
    '`languages` are the codes the model supports: a take of a voice of the model is accepted with each as `override_language`.',
    {
      quote: '| languages | array of string | Language codes the model supports. |',
    },
  ),
  r(
    'MODEL-SIMPLE-PROSODY',
    'Resources: Prosody (simple type)',
    'MUST',
    'Every model supports the simple prosody type {pace, pitch, expression}: a take with a simple prosody is accepted and reaches ready.',
    {
      quote: 'Every model supports the simple type.',
    },
  ),
  r(
    'MODEL-PROSODY-TYPES-USABLE',
    'Resources: Model',
    'INFO',
    'Which prosody types a take may use depends on the model: whether a take with each other type in `prosody_types` is accepted, sent with the wire facts\' fields, is reported. (INFO: speak-v1.md: "Fields of the `affect` prosody type: not shown".)',
  ),
  r(
    'MODEL-STYLES-USABLE',
    'Resources: Model; Resources: Take',
    'SHOULD',
    "A take's `style` holds names from the model's `styles`; a take with a style the model offers is accepted.",
    {
      quote: '| styles | array of array of string | Style names offered by the model. |',
    },
  ),
  r(
    'MODEL-GENDER-VALUES',
    'Fields and values',
    'INFO',
    'Gender values: `male`, `female`, `nonbinary` (speak-v1.md shows female and male).',
    {
      source: 'wire-facts',
    },
  ),
  r(
    'MODEL-PROSODY-TYPE-NAMES',
    'Fields and values',
    'INFO',
    'Prosody types: `simple` {pace, pitch, expression}, `affect` {pace, pitch, valence, arousal, dominance}, `signal` {pace, pitch, tilt, pitch_range}; every field an integer from -10 to 10.',
    {
      source: 'wire-facts',
    },
  ),
  r(
    'MODEL-VOICE-INPUTS',
    'Fields and values',
    'INFO',
    'Models may carry `voice_inputs` (values `gender`, `description`).',
    {
      source: 'wire-facts',
    },
  ),
];
