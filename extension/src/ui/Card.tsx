// A titled card: a section named by its own heading (aria-labelledby), so a screen reader
// lists it as a region under that title.
import { type ReactNode, useId } from 'react';

export function Card({ title, className, children }: { title: ReactNode; className?: string; children: ReactNode }) {
  const titleId = useId();
  return (
    <section aria-labelledby={titleId} className={className ? `card ${className}` : 'card'}>
      <h2 id={titleId} className="card-title">
        {title}
      </h2>
      {children}
    </section>
  );
}
