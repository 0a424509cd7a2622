/**
 * Landing pages' copy: choose the page and language, edit the heading, intro, points (one a
 * line) and questions, publish with a reason; the versions published before are listed
 * (they are kept). Without a published version the editor starts from the copy shipped
 * with the app (the server's build).
 */
import { useState } from 'react';
import { useLoad } from '@/hooks/use-load';
import { Choice, LoadError, Problems, When } from '@/operator/components/bits';
import { useAction } from '@/operator/components/use-action';
import { opGet, opPost } from '@/operator/lib/api';
import { asCopy, copyProblems, EMPTY_COPY, LANDING_TOPICS, pointsFromLines } from '@/operator/lib/landing';
import { LEGAL_LANGUAGES } from '@/operator/lib/legal';
import type { LandingAnswer, LandingCopy } from '@/operator/lib/types';

export function LandingDesk() {
  const [topic, setTopic] = useState('aiSex');
  const [lang, setLang] = useState('en');
  const load = useLoad((signal) => opGet<LandingAnswer>('landing', { topic, lang }, signal), [topic, lang]);
  const action = useAction(() => load.reload());
  const path = LANDING_TOPICS.find((t) => t.topic === topic)?.path ?? '';
  return (
    <section aria-label="Landing pages">
      <div className="op-row">
        <Choice
          label="Page"
          value={topic}
          options={LANDING_TOPICS.map((t) => t.topic)}
          optionLabel={(option) => LANDING_TOPICS.find((t) => t.topic === option)?.path ?? option}
          onChange={setTopic}
          testId="landing-topic"
        />
        <Choice label="Language" value={lang} options={LEGAL_LANGUAGES} onChange={setLang} testId="landing-lang" />
      </div>
      <LoadError error={load.error} />
      {action.notice}
      {load.data && (
        <LandingEditor
          key={`${topic}/${lang}/${load.data.versions.length}`}
          answer={load.data}
          onPublish={(copy) =>
            action.ask({
              title: 'Publish landing copy',
              detail: `${path} (${lang}) shows this copy from now on; the old version is kept.`,
              run: (reason) => opPost('landing/publish', { topic, lang, copy, reason }),
            })
          }
        />
      )}
      {action.prompt}
    </section>
  );
}

function LandingEditor({ answer, onPublish }: { answer: LandingAnswer; onPublish: (copy: LandingCopy) => void }) {
  const published = asCopy(answer.current);
  const [copy, setCopy] = useState<LandingCopy>(() => published ?? asCopy(answer.shipped) ?? EMPTY_COPY);
  const [points, setPoints] = useState(() => copy.points.join('\n'));
  const edited = { ...copy, points: pointsFromLines(points) };
  const problems = copyProblems(edited);
  const setFaq = (index: number, part: 'q' | 'a', value: string) =>
    setCopy({ ...copy, faq: copy.faq.map((item, i) => (i === index ? { ...item, [part]: value } : item)) });
  return (
    <>
      <p className="op-muted" data-testid="landing-source">
        {published
          ? 'Editing the published version.'
          : answer.shipped
            ? 'Nothing published yet: editing the copy shipped with the app.'
            : 'No copy found: start from scratch.'}
      </p>
      <label className="op-field">
        <span>Heading</span>
        <input
          value={copy.heading}
          onChange={(e) => setCopy({ ...copy, heading: e.target.value })}
          data-testid="landing-heading"
        />
      </label>
      <label className="op-field">
        <span>Intro</span>
        <textarea
          rows={4}
          value={copy.intro}
          onChange={(e) => setCopy({ ...copy, intro: e.target.value })}
          data-testid="landing-intro"
        />
      </label>
      <label className="op-field">
        <span>Points (one a line)</span>
        <textarea rows={4} value={points} onChange={(e) => setPoints(e.target.value)} data-testid="landing-points" />
      </label>
      <h2>Questions</h2>
      {copy.faq.map((item, i) => (
        <div className="op-grid2" key={i} data-testid="landing-faq-item">
          <label className="op-field">
            <span>Question {i + 1}</span>
            <input value={item.q} onChange={(e) => setFaq(i, 'q', e.target.value)} />
          </label>
          <label className="op-field">
            <span>Answer</span>
            <textarea rows={2} value={item.a} onChange={(e) => setFaq(i, 'a', e.target.value)} />
          </label>
          <button type="button" onClick={() => setCopy({ ...copy, faq: copy.faq.filter((_, j) => j !== i) })}>
            Remove question
          </button>
        </div>
      ))}
      <div className="op-row">
        <button
          type="button"
          onClick={() => setCopy({ ...copy, faq: [...copy.faq, { q: '', a: '' }] })}
          data-testid="landing-add-question"
        >
          Add question
        </button>
      </div>
      <Problems problems={problems} testId="landing-problems" />
      <button
        type="button"
        className="op-primary"
        disabled={problems.length > 0}
        onClick={() => onPublish(edited)}
        data-testid="landing-publish"
      >
        Publish
      </button>
      <h2>Versions</h2>
      {answer.versions.length === 0 ? (
        <p className="op-muted">None published yet.</p>
      ) : (
        <table className="op-table" data-testid="landing-versions">
          <thead>
            <tr>
              <th>Published</th>
              <th>Heading</th>
              <th>Operator</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {answer.versions.map((v, i) => {
              const version = asCopy(v.text);
              return (
                <tr key={`${v.at}-${i}`} data-testid="landing-version-row">
                  <td>
                    <When at={v.at} ms={v.at > 1e11} />
                  </td>
                  <td>{version?.heading}</td>
                  <td>{v.operatorId}</td>
                  <td>
                    <button
                      type="button"
                      disabled={!version}
                      onClick={() => {
                        if (!version) return;
                        setCopy(version);
                        setPoints(version.points.join('\n'));
                      }}
                    >
                      Load into editor
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </>
  );
}
