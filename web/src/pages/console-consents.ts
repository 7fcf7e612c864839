import { consoleAnswerText } from '../console/answers.js';
import { post, row, signedIn } from '../console/staff.js';
import { api } from '../lib/api.js';
import { clearMessages, onSubmit, setError, setStatus, showValidationErrors } from '../lib/form.js';
import { t } from '../lib/i18n.js';

/** /console/consents: the documents, a document's versions and texts, and publishing a version. */
const documentsTable = document.getElementById('documents') as HTMLElement;
const documentsCard = documentsTable.closest('section') as HTMLElement;
const versionsCard = document.getElementById('versions-card') as HTMLElement;
const versionsTable = document.getElementById('versions') as HTMLElement;
const versionText = document.getElementById('version-text') as HTMLElement;
const publishCard = document.getElementById('publish-card') as HTMLElement;
const publishForm = document.getElementById('publish') as HTMLFormElement;

type Texts = Record<string, { title: string; url: string }>;
interface Document {
  key: string;
  version: number;
  required: boolean;
  texts: Texts;
}
interface Version {
  version: number;
  published_at: string;
  texts: Texts;
  body_languages: string[];
}

const titleOf = (texts: Texts) => (texts.ko ?? texts.en ?? Object.values(texts)[0])?.title ?? '';
const error = (text: string) => {
  (documentsCard.querySelector('.error') as HTMLElement).textContent = text;
};

function button(label: string, run: () => Promise<void>): HTMLButtonElement {
  const element = document.createElement('button');
  element.type = 'button';
  element.textContent = label;
  element.addEventListener('click', () => {
    run().catch(() => error(t('error.network')));
  });
  return element;
}

async function loadDocuments(): Promise<void> {
  const answer = await api<{ documents: Document[] }>('/consents');
  if (answer.status !== 200) return error(consoleAnswerText(answer));
  const body = documentsTable.querySelector('tbody') as HTMLElement;
  body.replaceChildren(
    ...answer.body.data.documents.map((doc) =>
      row(documentsTable, [
        button(doc.key, () => loadVersions(doc.key)),
        String(doc.version),
        t(doc.required ? 'console.consents.required' : 'console.consents.optional'),
        titleOf(doc.texts),
      ]),
    ),
  );
  (document.getElementById('documents-none') as HTMLElement).hidden = body.childElementCount > 0;
}

async function loadVersions(key: string): Promise<void> {
  const answer = await api<{ versions: Version[] }>(`/consents/${encodeURIComponent(key)}/versions`);
  if (answer.status !== 200) return error(consoleAnswerText(answer));
  const body = versionsTable.querySelector('tbody') as HTMLElement;
  body.replaceChildren(
    ...answer.body.data.versions.map((version) =>
      row(versionsTable, [
        button(`${t('console.consents.read')} ${version.version}`, () => readVersion(key, version.version)),
        version.published_at.slice(0, 10),
        Object.keys(version.texts).join(', '),
        titleOf(version.texts),
      ]),
    ),
  );
  versionText.hidden = true;
  versionsCard.hidden = false;
  (document.getElementById('versions-h') as HTMLElement).focus();
}

async function readVersion(key: string, version: number): Promise<void> {
  const answer = await api<{ texts: Texts; bodies: Record<string, string> }>(
    `/consents/${encodeURIComponent(key)}/versions/${version}`,
  );
  if (answer.status !== 200) return error(consoleAnswerText(answer));
  const { texts, bodies } = answer.body.data;
  (document.getElementById('version-title') as HTMLElement).textContent = `${key} ${version}`;
  const parts = Object.entries(texts).map(([lang, text]) => {
    const section = document.createElement('section');
    section.lang = lang;
    const heading = document.createElement('h4');
    heading.textContent = text.title;
    const content = document.createElement('p');
    content.style.whiteSpace = 'pre-wrap';
    content.textContent = bodies[lang] ?? text.url;
    section.append(heading, content);
    return section;
  });
  (document.getElementById('version-bodies') as HTMLElement).replaceChildren(...parts);
  versionText.hidden = false;
}

signedIn()
  .then(async (me) => {
    publishCard.hidden = !me.permissions.includes('content.write');
    onSubmit(publishForm, async () => {
      clearMessages(publishForm);
      const data = new FormData(publishForm);
      const fields: Record<string, unknown> = { required: data.get('required') === 'on' };
      for (const [name, value] of data.entries()) {
        if (name !== 'required' && String(value).trim() !== '') fields[name] = String(value);
      }
      const key = String(data.get('key') ?? '').trim();
      const answer = await post(me, `/consents/${encodeURIComponent(key || '-')}/versions`, fields);
      if (answer.status === 422) return showValidationErrors(publishForm, answer.body.data);
      if (answer.status !== 200) return setError(publishForm, consoleAnswerText(answer));
      setStatus(publishForm, t('console.consents.published'));
      await loadDocuments();
      await loadVersions(key);
    });
    await loadDocuments();
  })
  .catch(() => error(t('error.network')));
