// The Lotes screen's form for a new bulk job: a pasted list or a chosen CSV, prepared for review
// (nothing is charged until the job is started in its panel).
import { useId, useRef, useState, type ChangeEvent } from 'react';
import type { ProductSlug } from '../../../../shared/api/common';
import type { BulkJobView } from '../../../../shared/api/bulk';
import { MAX_BULK_CONTENT_CHARS } from '../../../../shared/ipc/bulk-contract';
import { IDENTIFIER_HEADERS, bulkCsvDelimiter } from '../../../../shared/bulk-header';
import { useCreateBulkJob } from '../../api/bulk-hooks';
import { tpl, useI18n } from '../../i18n';
import { Card, ErrorBanner, Spinner } from '../../components/ui';
import { useToast } from '../../components/Toast';
import { IconBulk } from '../../components/Icons';
import { Segmented } from '../../components/Segmented';

type Source = 'paste' | 'file';

export function NewJobCard({ onReady }: { onReady: (id: string, completedBefore: BulkJobView | null) => void }) {
  const { m, dateTimeSeconds, plural } = useI18n();
  const toast = useToast();
  const id = useId();
  const fileInput = useRef<HTMLInputElement>(null);
  const [product, setProduct] = useState<ProductSlug>('cbu');
  const [source, setSource] = useState<Source>('paste');
  const [pasted, setPasted] = useState('');
  const [file, setFile] = useState<{ name: string; content: string } | null>(null);
  const [fileError, setFileError] = useState<'tooLarge' | 'unreadable' | null>(null);
  const create = useCreateBulkJob();

  const content = source === 'paste' ? pasted : (file?.content ?? '');
  const lines = countRows(content);
  const tooLarge = content.length > MAX_BULK_CONTENT_CHARS;

  const chooseFile = (e: ChangeEvent<HTMLInputElement>) => {
    const chosen = e.target.files?.[0];
    e.target.value = '';
    if (!chosen) return;
    setFileError(null);
    if (chosen.size > MAX_BULK_CONTENT_CHARS) {
      setFile(null);
      setFileError('tooLarge');
      return;
    }
    chosen.text().then(
      (text) => setFile({ name: chosen.name, content: text }),
      () => setFileError('unreadable'),
    );
  };

  const submit = () => {
    // A pasted list is named after the moment it was pasted, to the second: two lists pasted in one
    // minute (a back office splits a long list) were both "Lista pegada 23/11/2026, 14:05". The name
    // is stored as written, in this language; a number ("(2)") would read as the same list again.
    const name = source === 'file' && file ? file.name : tpl(m.bulk.pastedName, { when: dateTimeSeconds(new Date().toISOString()) });
    create.mutate(
      { name, product, content },
      {
        onSuccess: (result) => {
          onReady(result.job.id, result.resumed ? null : result.completedBefore);
          const before = result.completedBefore;
          if (result.resumed) toast((t) => t.m.bulk.resumedExisting);
          else if (before) toast((t) => tpl(t.m.bulk.completedBefore, { when: t.dateTime(before.finishedAt) }));
          if (source === 'paste') setPasted('');
          else setFile(null);
        },
      },
    );
  };

  return (
    <Card title={m.bulk.newTitle} subtitle={m.bulk.newSubtitle} className="bulk-new-card">
      <form
        className="form-stack"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <div className="bulk-choices">
          <Segmented
            label={m.bulk.product}
            options={(['cbu', 'informes'] as const).map((p) => ({ value: p, label: m.products[p], testId: `bulk-product-${p}` }))}
            value={product}
            onChange={setProduct}
          />
          <Segmented
            small
            label={m.bulk.source}
            options={(['paste', 'file'] as const).map((s) => ({ value: s, label: s === 'paste' ? m.bulk.sourcePaste : m.bulk.sourceFile, testId: `bulk-source-${s}` }))}
            value={source}
            onChange={setSource}
          />
        </div>

        {source === 'paste' ? (
          <div className="field">
            <label className="field-label" htmlFor={`${id}-list`}>
              {product === 'cbu' ? m.bulk.pasteLabel : m.bulk.pasteLabelReport}
            </label>
            <textarea
              id={`${id}-list`}
              className="input mono bulk-textarea"
              rows={6}
              value={pasted}
              onChange={(e) => setPasted(e.target.value)}
              placeholder={product === 'cbu' ? m.bulk.pastePlaceholder : m.bulk.pastePlaceholderReport}
              spellCheck={false}
              data-testid="bulk-input"
            />
          </div>
        ) : (
          <div className="field">
            <span className="field-label">{m.bulk.fileLabel}</span>
            <div className="bulk-file">
              <button type="button" className="btn btn-secondary" onClick={() => fileInput.current?.click()} data-testid="bulk-file-choose">
                {m.bulk.fileChoose}
              </button>
              <span className={`bulk-file-name ${file ? '' : 'muted'}`} data-testid="bulk-file-name">
                {file ? file.name : m.bulk.fileNone}
              </span>
              <input ref={fileInput} type="file" accept=".csv,.txt,text/csv,text/plain" className="sr-only" onChange={chooseFile} data-testid="bulk-file" tabIndex={-1} />
            </div>
            <p className="field-hint">{m.bulk.fileHint}</p>
            {fileError === 'tooLarge' ? <TooLarge /> : fileError === 'unreadable' ? <p className="field-error">{m.bulk.fileUnreadable}</p> : null}
          </div>
        )}

        <div className="bulk-submit-row">
          <span className="small muted" data-testid="bulk-line-count">
            {plural(lines, m.bulk.rowCount)}
          </span>
          <button type="submit" className="btn btn-primary" disabled={lines === 0 || tooLarge || create.isPending} data-testid="bulk-prepare">
            {create.isPending ? <Spinner /> : <IconBulk size={16} />}
            <span>{m.bulk.prepare}</span>
          </button>
        </div>
        {tooLarge ? <TooLarge /> : null}
        <p className="field-hint">{m.bulk.prepareHint}</p>
        {create.isError ? <ErrorBanner error={create.error} testId="bulk-create-error" /> : null}
      </form>
    </Card>
  );
}

/** Too large for the app: the sentence names the CLI command, shown as code. */
function TooLarge() {
  const { m } = useI18n();
  const [before, after] = m.bulk.fileTooLarge.split('{command}');
  return (
    <p className="field-error" data-testid="bulk-too-large">
      {before}
      <code>{m.bulk.fileTooLargeCommand}</code>
      {after}
    </p>
  );
}

/**
 * The rows the review will count ("Filas", the core's totalRows): the non-blank lines, less a CSV's
 * header. Counting the header made a pasted CSV of 3 rows say "4 líneas" and then "Filas 3". A quoted
 * cell spanning lines (rare) counts once per line here; the review's figure is the exact one.
 */
function countRows(content: string): number {
  const lines = content.replace(/^\uFEFF/, '').split('\n').filter((l) => l.trim() !== '');
  const first = lines[0]?.replace(/\r$/, '') ?? '';
  // The core's header rule (src/shared/bulk-header.ts); cells split without its quoting rules, which
  // a header naming its columns does not need.
  const header = first.split(bulkCsvDelimiter(first)).some((cell) => IDENTIFIER_HEADERS.has(cell.trim().replace(/^"(.*)"$/, '$1').trim().toLowerCase()));
  return lines.length - (header ? 1 : 0);
}
