// A labelled one-line input with a hint below it that screen readers read with the field
// (aria-describedby). Autocomplete and spell-check are off: the fields it serves hold
// addresses, codes and keys, not words.
import { type ReactNode, useId } from 'react';

export function Field({
  id,
  testId,
  label,
  hint,
  value,
  onChange,
  type = 'text',
  placeholder,
}: {
  id: string;
  testId?: string;
  label: string;
  hint: ReactNode;
  value: string;
  onChange: (value: string) => void;
  type?: 'text' | 'url';
  placeholder?: string;
}) {
  const hintId = useId();
  return (
    <>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        data-testid={testId}
        type={type}
        value={value}
        autoComplete="off"
        spellCheck={false}
        placeholder={placeholder}
        aria-describedby={hintId}
        onChange={(e) => onChange(e.target.value)}
      />
      <p id={hintId} className="muted small">
        {hint}
      </p>
    </>
  );
}
