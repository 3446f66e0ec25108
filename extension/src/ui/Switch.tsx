// An on/off setting: a checkbox that assistive technology announces as a switch, its
// aria-checked kept in step with `checked`, labelled by its children.
import type { ReactNode } from 'react';

export function Switch({
  checked,
  onChange,
  testId,
  describedBy,
  children,
}: {
  checked: boolean;
  onChange: (checked: boolean) => void;
  testId?: string;
  /** The id of a hint that says what the switch does in its current position. */
  describedBy?: string;
  children: ReactNode;
}) {
  return (
    <label className="switch">
      <input
        type="checkbox"
        role="switch"
        data-testid={testId}
        checked={checked}
        aria-checked={checked}
        aria-describedby={describedBy}
        onChange={(e) => onChange(e.target.checked)}
      />
      {children}
    </label>
  );
}
