import { useEffect, useRef, useState } from 'react';

/** Typing pauses this long before a typed filter is applied. */
export const TYPING_MS = 250;

/**
 * A text box that filters a listing whose filters live in the address bar: what is typed applies
 * after a short pause (`apply`, with undefined for an empty box), and when the address bar changes
 * under the box (Back, a link, Clear filters) the box shows what applies.
 */
export function useTypedFilter(applies: string | undefined, apply: (value: string | undefined) => void): [string, (text: string) => void] {
  const [text, setText] = useState(applies ?? '');
  const applied = useRef(applies);
  useEffect(() => {
    const typed = text.trim() || undefined;
    if (typed === applies) return;
    const timer = setTimeout(() => {
      applied.current = typed;
      apply(typed);
    }, TYPING_MS);
    return () => clearTimeout(timer);
  }, [text]);
  useEffect(() => {
    if (applies === applied.current) return;
    applied.current = applies;
    setText(applies ?? '');
  }, [applies]);
  return [text, setText];
}
