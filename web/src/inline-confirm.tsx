import { useEffect, useRef, type ReactNode, type RefObject } from 'react';

/**
 * Focus around a confirmation shown in place: it takes focus on the safe choice (Cancel) when it
 * opens, and gives it back to the button that opened it when it closes.
 */
export function useConfirmFocus(confirming: boolean): {
  cancelRef: RefObject<HTMLButtonElement | null>;
  openerRef: RefObject<HTMLButtonElement | null>;
} {
  const cancelRef = useRef<HTMLButtonElement>(null);
  const openerRef = useRef<HTMLButtonElement>(null);
  const wasConfirming = useRef(false);
  useEffect(() => {
    if (confirming) cancelRef.current?.focus();
    else if (wasConfirming.current) openerRef.current?.focus();
    wasConfirming.current = confirming;
  }, [confirming]);
  return { cancelRef, openerRef };
}

/** A confirmation in place, a group named by its question: Cancel or Escape cancels. */
export function InlineConfirm({
  id,
  question,
  confirmLabel,
  cancelRef,
  onCancel,
  onConfirm,
  children,
}: {
  id?: string;
  question: string;
  confirmLabel: string;
  cancelRef: RefObject<HTMLButtonElement | null>;
  onCancel: () => void;
  onConfirm: () => void;
  children: ReactNode;
}) {
  return (
    <div
      id={id}
      className="confirm"
      role="group"
      aria-label={question}
      onKeyDown={(event) => {
        if (event.key === 'Escape') onCancel();
      }}
    >
      <p>{children}</p>
      <div className="confirm-actions">
        <button ref={cancelRef} type="button" className="button button-secondary button-small" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="button button-danger button-small" onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </div>
  );
}
