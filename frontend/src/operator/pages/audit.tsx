/** The audit log, newest first, 50 at a time. */
import { useState } from 'react';
import { useLoad } from '@/hooks/use-load';
import { LoadError, When } from '@/operator/components/bits';
import { opGet } from '@/operator/lib/api';
import type { AuditEntry } from '@/operator/lib/types';

interface AuditAnswer {
  entries: AuditEntry[];
  hasMore: boolean;
}

export function AuditPage() {
  const [before, setBefore] = useState<string | null>(null);
  const [older, setOlder] = useState<AuditEntry[]>([]);
  const load = useLoad((signal) => opGet<AuditAnswer>('audit', { limit: 50, before }, signal), [before]);
  const entries = [...older, ...(load.data?.entries ?? [])];
  const loadMore = () => {
    const last = entries[entries.length - 1];
    if (!last) return;
    setOlder(entries);
    setBefore(last.entryId);
  };
  return (
    <div>
      <h1>Audit</h1>
      <LoadError error={load.error} />
      <table className="op-table" data-testid="audit-table">
        <thead>
          <tr>
            <th>At</th>
            <th>Operator</th>
            <th>Action</th>
            <th>Target</th>
            <th>Reason</th>
            <th>Outcome</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((e) => (
            <tr key={e.entryId} data-testid="audit-row" data-action={e.action}>
              <td>
                <When at={e.at} />
              </td>
              <td title={e.operatorId}>{e.operatorEmail ?? e.operatorId}</td>
              <td>{e.action}</td>
              <td>{e.target}</td>
              <td>{e.reason}</td>
              <td>{e.outcome}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {load.loading && <p className="op-muted">Loading…</p>}
      {load.data?.hasMore && !load.loading && (
        <button type="button" onClick={loadMore} data-testid="audit-more">
          Load more
        </button>
      )}
    </div>
  );
}
