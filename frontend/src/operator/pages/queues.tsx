/**
 * The moderation queues: Reports | Review | Feed | Refusals. Keyboard: j/k move the
 * selection, d dismiss, h hide, a approve, r reject, s restore, x remove, ? the keys; an
 * acting key opens the reason prompt, like the buttons.
 */
import { useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import { useLoad } from '@/hooks/use-load';
import { LoadError, When } from '@/operator/components/bits';
import { useAction } from '@/operator/components/use-action';
import { opGet, opPost } from '@/operator/lib/api';
import { moveSelection, shortcutOf, SHORTCUTS, type Shortcut } from '@/operator/lib/keys';
import type { FeedItem, ModerationEvent, ReportView, WaitingCharacter } from '@/operator/lib/types';

const TABS = [
  { id: 'reports', label: 'Reports' },
  { id: 'review', label: 'Review' },
  { id: 'feed', label: 'Feed' },
  { id: 'refusals', label: 'Refusals' },
] as const;
type Tab = (typeof TABS)[number]['id'];

/**
 * Window key presses as shortcuts, unless a prompt is open. The listener is added once and
 * reads the latest handler from a ref set during commit: a listener re-added in a passive
 * effect lags the render, so a key pressed just after the rows appear went to the handler
 * of the empty list (seen as a flaky test under CI load, and a lost key for a fast operator).
 */
function useShortcuts(enabled: boolean, handle: (shortcut: Shortcut) => void) {
  const latest = useRef({ enabled, handle });
  useLayoutEffect(() => {
    latest.current = { enabled, handle };
  });
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!latest.current.enabled) return;
      const shortcut = shortcutOf(event);
      if (!shortcut) return;
      event.preventDefault();
      latest.current.handle(shortcut);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}

export function QueuesPage() {
  const [params, setParams] = useSearchParams();
  const tab: Tab = TABS.find((t) => t.id === params.get('tab'))?.id ?? 'reports';
  const [help, setHelp] = useState(false);
  return (
    <div>
      <h1>Queues</h1>
      <div role="tablist" aria-label="Queues" className="op-tabs">
        {TABS.map((t) => (
          <button
            key={t.id}
            role="tab"
            type="button"
            aria-selected={tab === t.id}
            data-testid={`tab-${t.id}`}
            onClick={() => setParams({ tab: t.id })}
          >
            {t.label}
          </button>
        ))}
        <button type="button" className="op-link" onClick={() => setHelp((v) => !v)} data-testid="keys-help-toggle">
          Keys (?)
        </button>
      </div>
      {help && <KeysHelp onClose={() => setHelp(false)} />}
      {tab === 'reports' && <ReportsQueue onHelp={() => setHelp((v) => !v)} />}
      {tab === 'review' && <ReviewQueue onHelp={() => setHelp((v) => !v)} />}
      {tab === 'feed' && <FeedQueue onHelp={() => setHelp((v) => !v)} />}
      {tab === 'refusals' && <RefusalLog />}
    </div>
  );
}

function KeysHelp({ onClose }: { onClose: () => void }) {
  return (
    <section className="op-card" data-testid="keys-help" aria-label="Keyboard shortcuts">
      <table className="op-table">
        <tbody>
          {SHORTCUTS.map((s) => (
            <tr key={s.key}>
              <td>
                <kbd>{s.key}</kbd>
              </td>
              <td>{s.label}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <button type="button" onClick={onClose}>
        Close
      </button>
    </section>
  );
}

/** The selection of a list and the keys that move it and act on the selected item. */
function useQueue<T>(items: T[], open: boolean, onHelp: () => void, act: (shortcut: Shortcut, item: T) => void) {
  const [selected, setSelected] = useState(0);
  const index = Math.min(selected, Math.max(0, items.length - 1));
  useShortcuts(!open, (shortcut) => {
    if (shortcut === 'help') return onHelp();
    if (shortcut === 'next' || shortcut === 'previous')
      return setSelected(moveSelection(index, items.length, shortcut));
    const item = items[index];
    if (item !== undefined) act(shortcut, item);
  });
  return { index, setSelected };
}

function Row({
  selected,
  onSelect,
  testId,
  id,
  children,
}: {
  selected: boolean;
  onSelect: () => void;
  testId: string;
  id: string;
  children: ReactNode;
}) {
  const ref = (element: HTMLElement | null) => {
    if (selected && element) element.scrollIntoView?.({ block: 'nearest' });
  };
  return (
    <article
      ref={ref}
      className={`op-item ${selected ? 'op-selected' : ''}`}
      aria-current={selected ? 'true' : undefined}
      data-testid={testId}
      data-id={id}
      onClick={onSelect}
    >
      {children}
    </article>
  );
}

function ReportsQueue({ onHelp }: { onHelp: () => void }) {
  const load = useLoad((signal) => opGet<{ reports: ReportView[] }>('reports', { limit: 100 }, signal), []);
  const action = useAction(() => load.reload());
  const reports = load.data?.reports ?? [];

  const dismiss = (report: ReportView) =>
    action.ask({
      title: 'Dismiss report',
      detail: `The report on ${report.characterName || report.characterId} is closed with nothing done.`,
      run: (reason) => opPost('report/decide', { reportId: report.reportId, decision: 'dismissed', reason }),
    });
  const hide = (report: ReportView) =>
    action.ask({
      title: 'Hide character',
      detail: `${report.characterName || report.characterId} leaves the catalogue; the report is marked actioned.`,
      run: async (reason) => {
        if (!report.characterHidden) await opPost('character/hide', { characterId: report.characterId, reason });
        return opPost('report/decide', { reportId: report.reportId, decision: 'actioned', reason });
      },
    });
  const removeImage = (report: ReportView) =>
    action.ask({
      title: 'Remove image',
      detail: 'The reported image is deleted for good; the report is marked actioned.',
      run: async (reason) => {
        await opPost('image/remove', { feedId: report.feedId, reason });
        return opPost('report/decide', { reportId: report.reportId, decision: 'actioned', reason });
      },
    });
  const queue = useQueue(reports, action.open, onHelp, (shortcut, report) => {
    if (shortcut === 'dismiss') dismiss(report);
    if (shortcut === 'hide') hide(report);
    if (shortcut === 'remove' && report.feedId) removeImage(report);
  });

  return (
    <section aria-label="Reports">
      <LoadError error={load.error} />
      {action.notice}
      {load.loading && <p className="op-muted">Loading…</p>}
      {!load.loading && reports.length === 0 && !load.error && <p className="op-muted">No reports.</p>}
      {reports.map((report, i) => (
        <Row
          key={report.reportId}
          id={report.reportId}
          testId="report-row"
          selected={i === queue.index}
          onSelect={() => queue.setSelected(i)}
        >
          <header className="op-row">
            <strong data-testid="report-character">{report.characterName || `(gone) ${report.characterId}`}</strong>
            {report.characterHidden && <span className="op-badge">hidden</span>}
            <span className="op-badge">{report.reason}</span>
            {report.decision && (
              <span className="op-badge" data-testid="report-decision">
                {report.decision.decision}
              </span>
            )}
            <span className="op-muted">
              <When at={report.createdAt} ms={report.createdAt > 1e11} /> · reporter {report.reporterId}
            </span>
          </header>
          {report.messageText !== null && <blockquote data-testid="report-message">{report.messageText}</blockquote>}
          {report.note && <p>Note: {report.note}</p>}
          <div className="op-row">
            <button type="button" onClick={() => dismiss(report)} data-testid="report-dismiss">
              Dismiss (d)
            </button>
            <button type="button" className="op-danger" onClick={() => hide(report)} data-testid="report-hide">
              Hide character (h)
            </button>
            {report.feedId && (
              <button
                type="button"
                className="op-danger"
                onClick={() => removeImage(report)}
                data-testid="report-remove-image"
              >
                Remove image (x)
              </button>
            )}
          </div>
        </Row>
      ))}
      {action.prompt}
    </section>
  );
}

function ReviewQueue({ onHelp }: { onHelp: () => void }) {
  const load = useLoad(
    (signal) => opGet<{ characters: WaitingCharacter[] }>('character/review', { limit: 100 }, signal),
    [],
  );
  const action = useAction(() => load.reload());
  const characters = load.data?.characters ?? [];
  const approve = (c: WaitingCharacter) =>
    action.ask({
      title: 'Approve character',
      detail: `${c.characterName} becomes public.`,
      run: (reason) => opPost('character/approve', { characterId: c.characterId, reason }),
    });
  const reject = (c: WaitingCharacter) =>
    action.ask({
      title: 'Reject character',
      detail: `${c.characterName} stays private; the creator is shown the reason.`,
      run: (reason) => opPost('character/reject', { characterId: c.characterId, reason }),
    });
  const queue = useQueue(characters, action.open, onHelp, (shortcut, c) => {
    if (shortcut === 'approve') approve(c);
    if (shortcut === 'reject') reject(c);
  });
  return (
    <section aria-label="Review">
      <LoadError error={load.error} />
      {action.notice}
      {!load.loading && characters.length === 0 && !load.error && <p className="op-muted">Nothing waits for review.</p>}
      {characters.map((c, i) => (
        <Row
          key={c.characterId}
          id={c.characterId}
          testId="review-row"
          selected={i === queue.index}
          onSelect={() => queue.setSelected(i)}
        >
          <header className="op-row">
            {c.characterPhoto && <img src={c.characterPhoto} alt="" className="op-thumb" />}
            <strong>{c.characterName}</strong>
            {c.nsfw && <span className="op-badge">nsfw</span>}
            <span className="op-muted">
              creator {c.creatorId} · <When at={c.submittedAt} ms />
            </span>
          </header>
          <dl className="op-dl">
            <dt>Introduction</dt>
            <dd>{c.introduction}</dd>
            <dt>Greeting</dt>
            <dd>{c.greeting}</dd>
            <dt>Scenario</dt>
            <dd>{c.scenario}</dd>
            <dt>Personality</dt>
            <dd>{c.personality}</dd>
          </dl>
          <div className="op-row">
            <button type="button" onClick={() => approve(c)} data-testid="review-approve">
              Approve (a)
            </button>
            <button type="button" className="op-danger" onClick={() => reject(c)} data-testid="review-reject">
              Reject (r)
            </button>
          </div>
        </Row>
      ))}
      {action.prompt}
    </section>
  );
}

function FeedQueue({ onHelp }: { onHelp: () => void }) {
  const load = useLoad(
    (signal) => opGet<{ images: FeedItem[]; hasMore: boolean }>('feed', { filter: 'hidden', limit: 100 }, signal),
    [],
  );
  const action = useAction(() => load.reload());
  const images = load.data?.images ?? [];
  const restore = (image: FeedItem) =>
    action.ask({
      title: 'Restore image',
      detail: 'The image returns to the feed.',
      run: (reason) => opPost('feed/restore', { feedId: image.feedId, reason }),
    });
  const remove = (image: FeedItem) =>
    action.ask({
      title: 'Remove image',
      detail: 'The image is deleted for good.',
      run: (reason) => opPost('image/remove', { feedId: image.feedId, reason }),
    });
  const queue = useQueue(images, action.open, onHelp, (shortcut, image) => {
    if (shortcut === 'restore') restore(image);
    if (shortcut === 'remove') remove(image);
  });
  return (
    <section aria-label="Feed">
      <LoadError error={load.error} />
      {action.notice}
      {!load.loading && images.length === 0 && !load.error && <p className="op-muted">No hidden images.</p>}
      {images.map((image, i) => (
        <Row
          key={image.feedId}
          id={image.feedId}
          testId="feed-row"
          selected={i === queue.index}
          onSelect={() => queue.setSelected(i)}
        >
          <div className="op-row">
            <img src={image.url} alt={image.prompt} className="op-image" />
            <div>
              <p>
                <strong>{image.characterName ?? 'No character'}</strong> · owner {image.ownerNo || image.ownerId} ·{' '}
                {image.reports} report(s) · hidden <When at={image.hiddenAt} />
              </p>
              <p className="op-muted">{image.prompt}</p>
              <div className="op-row">
                <button type="button" onClick={() => restore(image)} data-testid="feed-restore">
                  Restore (s)
                </button>
                <button type="button" className="op-danger" onClick={() => remove(image)} data-testid="feed-remove">
                  Remove (x)
                </button>
              </div>
            </div>
          </div>
        </Row>
      ))}
      {action.prompt}
    </section>
  );
}

function RefusalLog() {
  const load = useLoad(
    (signal) => opGet<{ events: ModerationEvent[]; hasMore: boolean }>('moderation/log', { limit: 200 }, signal),
    [],
  );
  const events = load.data?.events ?? [];
  const counts = new Map<string, number>();
  for (const e of events)
    counts.set(`${e.surface}\u0000${e.policy}`, (counts.get(`${e.surface}\u0000${e.policy}`) ?? 0) + 1);
  return (
    <section aria-label="Refusals">
      <LoadError error={load.error} />
      <h2>By path and policy (last {events.length})</h2>
      <table className="op-table" data-testid="refusal-summary">
        <thead>
          <tr>
            <th>Path</th>
            <th>Policy / language</th>
            <th>Refusals</th>
          </tr>
        </thead>
        <tbody>
          {[...counts].map(([key, count]) => {
            const [surface, policy] = key.split('\u0000');
            return (
              <tr key={key}>
                <td>{surface}</td>
                <td>{policy}</td>
                <td>{count}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <h2>Newest</h2>
      <table className="op-table" data-testid="refusal-log">
        <thead>
          <tr>
            <th>At</th>
            <th>Path</th>
            <th>Policy</th>
            <th>Refusal</th>
            <th>Layer</th>
            <th>Excerpt</th>
          </tr>
        </thead>
        <tbody>
          {events.map((e) => (
            <tr key={e.eventId}>
              <td>
                <When at={e.at} />
              </td>
              <td>{e.surface}</td>
              <td>{e.policy}</td>
              <td>{e.refusal}</td>
              <td>{e.layer}</td>
              <td>{e.excerpt}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
