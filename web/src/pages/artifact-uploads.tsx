import { useEffect, useRef, useState } from 'react';
import { Badge, FieldError } from '../components.tsx';
import type { ArtifactPurpose } from '../../../shared/domain/artifact.ts';
import { labelOf, type JsonSchema } from '../scope-schema.ts';
import { uploadFields, type ArtifactFieldsView, type Upload, type useArtifactUploads } from '../uploads.ts';

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

/** What the file picker of a purpose offers (the API checks the declared type and the bytes anyway). */
const ACCEPT: Record<ArtifactPurpose, string> = {
  rua: '.xml,.zip,.gz,.gzip,application/xml,text/xml,application/zip,application/gzip',
  eml: '.eml,message/rfc822',
  sbom: '.json,application/vnd.cyclonedx+json',
};

/** An artifact field as the tile shows it: its scope key, purpose, one file or many, and its words from the scope schema. */
export interface ArtifactPicker {
  key: string;
  purpose: ArtifactPurpose;
  many: boolean;
  label: string;
  hint?: string;
}

/** The pickers of an engine's `artifact_fields`, labelled and hinted by its scope schema (a field's title and description). */
export function artifactPickers(fields: ArtifactFieldsView, schema: JsonSchema | null | undefined): ArtifactPicker[] {
  const properties = (schema?.properties ?? {}) as Record<string, JsonSchema>;
  return uploadFields(fields).map(([key, purpose, many]) => {
    const own = properties[key] ?? {};
    return { key, purpose, many, label: labelOf(key, own), hint: typeof own.description === 'string' ? own.description : undefined };
  });
}

/**
 * A tile's files (DESIGN §8), one picker per artifact field of the engine's manifest
 * (email_security: DMARC aggregate reports for the rua surface, several, and one .eml for the
 * header surface). Each file shows its phase; a rejected one its reason, and it is not sent. The
 * list is a polite live region, so each change of phase is announced.
 */
export function ArtifactUploads({
  idPrefix,
  pickers,
  uploads,
  errorOf,
}: {
  idPrefix: string;
  pickers: ArtifactPicker[];
  uploads: ReturnType<typeof useArtifactUploads>;
  errorOf: (field: string) => string | undefined;
}) {
  const inputs = useRef(new Map<string, HTMLInputElement>());
  const choose = (picker: ArtifactPicker) => {
    const input = inputs.current.get(picker.key);
    const files = [...(input?.files ?? [])];
    if (files.length) uploads.add(picker.key, picker.purpose, picker.many, files);
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
  if (pickers.length === 0) return null;
  const labelOfField = new Map(pickers.map((picker) => [picker.key, picker.label]));
  return (
    <fieldset className="fieldset">
      <legend>Files to analyse</legend>
      <div className="field-row">
        {pickers.map((picker) => {
          const id = `${idPrefix}-${picker.key}`;
          const error = errorOf(picker.key);
          return (
            <div className="field" key={picker.key}>
              <label htmlFor={id}>{picker.label}</label>
              <input
                ref={(element) => {
                  if (element) inputs.current.set(picker.key, element);
                  else inputs.current.delete(picker.key);
                }}
                id={id}
                type="file"
                multiple={picker.many}
                accept={ACCEPT[picker.purpose]}
                onChange={() => choose(picker)}
                aria-describedby={[picker.hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined}
                aria-invalid={!!error}
              />
              {picker.hint && (
                <p id={`${id}-hint`} className="hint">
                  {picker.hint}
                </p>
              )}
              <FieldError id={`${id}-error`} message={error} />
            </div>
          );
        })}
      </div>
      {uploads.uploads.length > 0 && (
        <ul className="uploads" aria-label="Uploaded files">
          {uploads.uploads.map((upload) => (
            <li key={upload.key} className={`upload upload-${upload.phase}`}>
              <span className="upload-name">{upload.filename}</span>
              <span className="upload-meta">
                {labelOfField.get(upload.field) ?? upload.field} · {sizeText(upload.size)}
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
