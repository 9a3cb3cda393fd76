/**
 * Filters and search in the delivery log (issue #28): a status filter (all,
 * delivered, failed, pending, replayed) and a search over the event type and
 * the delivery id. Applied in the page to the rows `renderLog` drew; an
 * attempts row follows its delivery's row.
 *
 * @module
 */

/** The status filter's values. */
export type LogFilter = 'all' | 'delivered' | 'failed' | 'pending' | 'replayed';

/** Whether a row with these marks passes `filter` and `query`. */
export function rowMatches(
  row: {
    readonly deliveryId: string;
    readonly text: string;
    readonly status: string;
    readonly pending: boolean;
    readonly duplicate: boolean;
  },
  filter: LogFilter,
  query: string,
): boolean {
  const q = query.trim().toLowerCase();
  if (q !== '' && !row.deliveryId.toLowerCase().includes(q) && !row.text.toLowerCase().includes(q))
    return false;
  switch (filter) {
    case 'all':
      return true;
    case 'pending':
      return row.pending;
    case 'replayed':
      return row.duplicate;
    default:
      return !row.pending && row.status === filter;
  }
}

/** Hides the log rows (`#log tbody`) that do not pass the page's filter and search; says how many show. */
export function applyLogFilter(): void {
  const filter = ((document.getElementById('log-filter') as HTMLSelectElement | null)?.value ??
    'all') as LogFilter;
  const query = (document.getElementById('log-search') as HTMLInputElement | null)?.value ?? '';
  let shown = 0;
  let total = 0;
  let lastShown = true;
  for (const tr of Array.from(document.querySelectorAll<HTMLTableRowElement>('#log tbody tr'))) {
    if (tr.classList.contains('attempts')) {
      tr.hidden = !lastShown;
      continue;
    }
    total += 1;
    const status = tr.children[1]?.firstChild?.textContent ?? '';
    lastShown = rowMatches(
      {
        deliveryId: tr.dataset['deliveryId'] ?? '',
        text: tr.children[0]?.textContent ?? '',
        status: status.trim(),
        pending: tr.dataset['pending'] === 'true',
        duplicate: tr.dataset['duplicate'] === 'true',
      },
      filter,
      query,
    );
    tr.hidden = !lastShown;
    if (lastShown) shown += 1;
  }
  const count = document.getElementById('log-count');
  if (count !== null) count.textContent = shown === total ? `${total}` : `${shown} of ${total}`;
}

/** Wires the filter and search inputs. */
export function startLogFilter(): void {
  document.getElementById('log-filter')?.addEventListener('change', applyLogFilter);
  document.getElementById('log-search')?.addEventListener('input', applyLogFilter);
}
