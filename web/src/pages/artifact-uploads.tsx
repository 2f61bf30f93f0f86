import { useEffect, useRef, useState } from 'react';
import { Badge, FieldError } from '../components.tsx';
import type { Upload, useArtifactUploads } from '../uploads.ts';

const phaseBadge: Record<Upload['phase'], { tone: 'progress' | 'success' | 'danger'; text: string }> = {
  uploading: { tone: 'progress', text: 'Uploading' },
  checking: { tone: 'progress', text: 'Checking' },
  ready: { tone: 'success', text: 'Ready' },
  rejected: { tone: 'danger', text: 'Rejected' },
  failed: { tone: 'danger', text: 'Failed' },
};

function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** What a screen reader hears when a file changes phase. */
function announcement(upload: Upload): string {
  const text = `${upload.filename}: ${phaseBadge[upload.phase].text.toLowerCase()}`;
  return upload.message ? `${text}, ${upload.message}` : text;
}

/**
 * The email_security tile's files (DESIGN §8): DMARC aggregate reports for the rua surface (several)
 * and one .eml for the header surface. Each file shows its phase; a rejected one its reason, and it
 * is not sent. The list is a polite live region, so each change of phase is announced.
 */
export function ArtifactUploads({
  idPrefix,
  uploads,
  errorOf,
}: {
  idPrefix: string;
  uploads: ReturnType<typeof useArtifactUploads>;
  errorOf: (field: string) => string | undefined;
}) {
  const reports = useRef<HTMLInputElement>(null);
  const message = useRef<HTMLInputElement>(null);
  const choose = (purpose: 'rua' | 'eml', input: HTMLInputElement | null) => {
    const files = [...(input?.files ?? [])];
    if (files.length) uploads.add(purpose, files);
    // The same file may be chosen again after removing it.
    if (input) input.value = '';
  };
  // The live region says what just changed, not the whole list again.
  const phases = useRef(new Map<string, Upload['phase']>());
  const [news, setNews] = useState('');
  useEffect(() => {
    const changed = uploads.uploads.filter((upload) => phases.current.get(upload.key) !== upload.phase);
    phases.current = new Map(uploads.uploads.map((upload) => [upload.key, upload.phase]));
    if (changed.length) setNews(changed.map(announcement).join('. '));
  }, [uploads.uploads]);
  const ruaError = errorOf('rua');
  const headerError = errorOf('header');
  return (
    <fieldset className="fieldset">
      <legend>Files to analyse</legend>
      <div className="field-row">
        <div className="field">
          <label htmlFor={`${idPrefix}-rua`}>DMARC aggregate reports</label>
          <input
            ref={reports}
            id={`${idPrefix}-rua`}
            type="file"
            multiple
            accept=".xml,.zip,.gz,.gzip,application/xml,text/xml,application/zip,application/gzip"
            onChange={() => choose('rua', reports.current)}
            aria-describedby={`${idPrefix}-rua-hint${ruaError ? ` ${idPrefix}-rua-error` : ''}`}
            aria-invalid={!!ruaError}
          />
          <p id={`${idPrefix}-rua-hint`} className="hint">
            XML, .zip or .gz as reporters send them; up to 20 files, 25 MiB each.
          </p>
          <FieldError id={`${idPrefix}-rua-error`} message={ruaError} />
        </div>
        <div className="field">
          <label htmlFor={`${idPrefix}-eml`}>Message (.eml)</label>
          <input
            ref={message}
            id={`${idPrefix}-eml`}
            type="file"
            accept=".eml,message/rfc822"
            onChange={() => choose('eml', message.current)}
            aria-describedby={`${idPrefix}-eml-hint${headerError ? ` ${idPrefix}-eml-error` : ''}`}
            aria-invalid={!!headerError}
          />
          <p id={`${idPrefix}-eml-hint`} className="hint">
            One message with its full headers, up to 50 MiB; its Received chain, DKIM and ARC are checked.
          </p>
          <FieldError id={`${idPrefix}-eml-error`} message={headerError} />
        </div>
      </div>
      {uploads.uploads.length > 0 && (
        <ul className="uploads" aria-label="Uploaded files">
          {uploads.uploads.map((upload) => (
            <li key={upload.key} className={`upload upload-${upload.phase}`}>
              <span className="upload-name">{upload.filename}</span>
              <span className="upload-meta">
                {upload.purpose === 'rua' ? 'DMARC report' : 'Message'} · {sizeText(upload.size)}
              </span>
              <Badge tone={phaseBadge[upload.phase].tone}>
                {(upload.phase === 'uploading' || upload.phase === 'checking') && <span className="spinner" aria-hidden="true" />}
                {phaseBadge[upload.phase].text}
              </Badge>
              <button
                type="button"
                className="button button-ghost button-small upload-remove"
                aria-label={`Remove ${upload.filename}`}
                onClick={() => uploads.remove(upload.key)}
              >
                Remove
              </button>
              {upload.message && (
                <p className="upload-message">
                  {upload.phase === 'rejected' ? `${upload.message}. Not sent with the scan.` : upload.message}
                </p>
              )}
            </li>
          ))}
        </ul>
      )}
      <p className="visually-hidden" role="status" aria-live="polite" aria-label="Upload status">
        {news}
      </p>
    </fieldset>
  );
}
