import { useId, useState } from 'react';
import { useBaseUrl } from '../hub';
import { CopyButton } from './Copy';

export const API_KEY_PLACEHOLDER = 'pk_YOUR_API_KEY';
export const USER_KEY_PLACEHOLDER = 'uk_YOUR_USER_KEY';

type Kind = 'curl' | 'homeassistant';

/**
 * Ready-to-paste examples of POST /v1/push with the hub's address filled in: curl and a Home
 * Assistant `rest_command`. Keys not known here stay as visible placeholders.
 */
export function Snippets({ apiKey, target, title = 'Hello from Pushhub', body = 'It works!' }: {
  apiKey?: string;
  target?: { userKey: string } | { userGroupKey: string };
  title?: string;
  body?: string;
}) {
  const [kind, setKind] = useState<Kind>('curl');
  const base = useBaseUrl();
  const name = useId();
  const key = apiKey ?? API_KEY_PLACEHOLDER;
  const [targetField, targetValue] = target
    ? 'userKey' in target
      ? ['userKey', target.userKey]
      : ['userGroupKey', target.userGroupKey]
    : ['userKey', USER_KEY_PLACEHOLDER];

  // Multi-line JSON inside single quotes: valid for the shell, readable here.
  const payload = JSON.stringify({ apiKey: key, [targetField]: targetValue, title, body }, null, 2)
    .replaceAll("'", "'\\''")
    .replaceAll('\n', '\n  ');
  const curl = [`curl -s ${base}/v1/push \\`, `  -H 'Content-Type: application/json' \\`, `  -d '${payload}'`].join('\n');
  const homeAssistant = [
    '# configuration.yaml',
    'rest_command:',
    '  pushhub:',
    `    url: ${base}/v1/push`,
    '    method: POST',
    '    content_type: application/json',
    `    payload: '{"apiKey":"${key}","${targetField}":"${targetValue}","title":"{{ title }}","body":"{{ message }}"}'`,
    '',
    '# in an automation or script',
    'action: rest_command.pushhub',
    'data:',
    `  title: ${title}`,
    `  message: ${body}`,
  ].join('\n');
  const text = kind === 'curl' ? curl : homeAssistant;
  const placeholders = [!apiKey && 'the app’s API key', !target && 'a User Key or User Group Key'].filter(Boolean);

  return (
    <div className="snippets">
      <div className="snippets-bar">
        <fieldset className="segmented">
          <legend className="visually-hidden">Example</legend>
          <label>
            <input type="radio" name={name} checked={kind === 'curl'} onChange={() => setKind('curl')} />
            <span>curl</span>
          </label>
          <label>
            <input type="radio" name={name} checked={kind === 'homeassistant'} onChange={() => setKind('homeassistant')} />
            <span>Home Assistant</span>
          </label>
        </fieldset>
        <CopyButton value={text} label={kind === 'curl' ? 'Copy curl command' : 'Copy Home Assistant configuration'} />
      </div>
      <pre className="code" tabIndex={0} aria-label={kind === 'curl' ? 'curl command' : 'Home Assistant configuration'}>
        <code>{text}</code>
      </pre>
      {placeholders.length > 0 && (
        <p className="hint">
          Replace <code>{!apiKey ? API_KEY_PLACEHOLDER : USER_KEY_PLACEHOLDER}</code>
          {placeholders.length > 1 && (
            <>
              {' '}
              and <code>{USER_KEY_PLACEHOLDER}</code>
            </>
          )}{' '}
          with {placeholders.join(' and ')}.
        </p>
      )}
    </div>
  );
}
