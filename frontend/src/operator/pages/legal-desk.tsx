/**
 * Legal texts: choose the document and language, edit the text (title field, or the whole
 * JSON, validated), set the date (today by default), preview, publish with a reason; the
 * versions published before are listed (they are kept). Without a published version the
 * editor starts from the text shipped with the app (/locales/<lang>/legal.json).
 */
import { useState } from 'react';
import { useLoad } from '@/hooks/use-load';
import { Choice, LoadError, When } from '@/operator/components/bits';
import { useAction } from '@/operator/components/use-action';
import { opGet, opPost } from '@/operator/lib/api';
import { today, isRealDate } from '@/operator/lib/blog';
import {
  bundledLegalText,
  checkLegalText,
  LEGAL_DOC_KEYS,
  LEGAL_LANGUAGES,
  parseLegalJson,
  type LegalText,
} from '@/operator/lib/legal';
import type { LegalAnswer } from '@/operator/lib/types';

interface Loaded {
  answer: LegalAnswer;
  /** The text the editor starts from, and where it came from. */
  start: LegalText | null;
  from: 'published' | 'bundled' | 'none';
}

async function loadLegal(doc: string, lang: string, signal: AbortSignal): Promise<Loaded> {
  const answer = await opGet<LegalAnswer>('legal', { doc, lang }, signal);
  if (answer.current) {
    const checked = checkLegalText(answer.current.text);
    if ('text' in checked) return { answer, start: checked.text, from: 'published' };
  }
  const bundled = await bundledLegalText(lang, doc).catch(() => null);
  return { answer, start: bundled, from: bundled ? 'bundled' : 'none' };
}

export function LegalDesk() {
  const [doc, setDoc] = useState<string>('termsOfService');
  const [lang, setLang] = useState('en');
  const load = useLoad((signal) => loadLegal(doc, lang, signal), [doc, lang]);
  const action = useAction(() => load.reload());
  return (
    <section aria-label="Legal">
      <div className="op-row">
        <Choice label="Document" value={doc} options={LEGAL_DOC_KEYS} onChange={setDoc} testId="legal-doc" />
        <Choice label="Language" value={lang} options={LEGAL_LANGUAGES} onChange={setLang} testId="legal-lang" />
      </div>
      <LoadError error={load.error} />
      {action.notice}
      {load.data && (
        <LegalEditor
          key={`${doc}/${lang}/${load.data.answer.current?.lastModified ?? ''}/${load.data.answer.versions.length}`}
          loaded={load.data}
          onPublish={(text, lastModified) =>
            action.ask({
              title: 'Publish legal text',
              detail: `${doc} (${lang}) dated ${lastModified} replaces the text users see; the old version is kept.`,
              run: (reason) => opPost('legal/publish', { doc, lang, lastModified, text, reason }),
            })
          }
        />
      )}
      {action.prompt}
    </section>
  );
}

function LegalEditor({ loaded, onPublish }: { loaded: Loaded; onPublish: (text: LegalText, date: string) => void }) {
  const [json, setJson] = useState(() =>
    JSON.stringify(loaded.start ?? { title: '', intro: '', sections: [] }, null, 2),
  );
  const [date, setDate] = useState(today());
  const parsed = parseLegalJson(json);
  const text = 'text' in parsed ? parsed.text : null;
  const setTitle = (title: string) => {
    if (text) setJson(JSON.stringify({ ...text, title }, null, 2));
  };
  const dateOk = isRealDate(date);
  return (
    <>
      <p className="op-muted" data-testid="legal-source">
        {loaded.from === 'published'
          ? `Editing the published version of ${loaded.answer.current?.lastModified}.`
          : loaded.from === 'bundled'
            ? 'Nothing published yet: editing the text shipped with the app.'
            : 'No text found: start from scratch.'}
      </p>
      <div className="op-grid2">
        <label className="op-field">
          <span>Title</span>
          <input
            value={text?.title ?? ''}
            disabled={!text}
            onChange={(e) => setTitle(e.target.value)}
            data-testid="legal-title"
          />
        </label>
        <label className="op-field">
          <span>Last modified</span>
          <input type="date" value={date} onChange={(e) => setDate(e.target.value)} data-testid="legal-date" />
        </label>
      </div>
      <div className="op-split">
        <label className="op-field">
          <span>
            Text (JSON: title, intro, sections[{'{'}heading, paragraphs[], items?[]{'}'}])
          </span>
          <textarea
            rows={24}
            value={json}
            onChange={(e) => setJson(e.target.value)}
            data-testid="legal-json"
            spellCheck={false}
          />
        </label>
        <article className="op-preview" data-testid="legal-preview" aria-label="Preview">
          {text ? (
            <>
              <h2>{text.title}</h2>
              <p className="op-muted">Last modified: {date}</p>
              <p>{text.intro}</p>
              {text.sections.map((s, i) => (
                <section key={i}>
                  <h3>{s.heading}</h3>
                  {s.paragraphs.map((p, j) => (
                    <p key={j}>{p}</p>
                  ))}
                  {s.items && (
                    <ul>
                      {s.items.map((item, j) => (
                        <li key={j}>{item}</li>
                      ))}
                    </ul>
                  )}
                </section>
              ))}
            </>
          ) : null}
        </article>
      </div>
      {'problem' in parsed && (
        <p className="op-error" role="alert" data-testid="legal-problem">
          {parsed.problem}
        </p>
      )}
      {!dateOk && <p className="op-error">The date must be a real day (YYYY-MM-DD).</p>}
      <button
        type="button"
        className="op-primary"
        disabled={!text || !dateOk}
        onClick={() => text && onPublish(text, date)}
        data-testid="legal-publish"
      >
        Publish
      </button>
      <h2>Versions</h2>
      {loaded.answer.versions.length === 0 ? (
        <p className="op-muted">None published yet.</p>
      ) : (
        <table className="op-table" data-testid="legal-versions">
          <thead>
            <tr>
              <th>Last modified</th>
              <th>Published</th>
              <th>Operator</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {loaded.answer.versions.map((v, i) => (
              <tr key={`${v.at}-${i}`} data-testid="legal-version-row">
                <td>{v.lastModified}</td>
                <td>
                  <When at={v.at} ms={v.at > 1e11} />
                </td>
                <td>{v.operatorId}</td>
                <td>
                  <button type="button" onClick={() => setJson(JSON.stringify(v.text, null, 2))}>
                    Load into editor
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
