// Loading, empty and error states, the same in every view.
import type { ReactNode } from 'react';
import { describeError, type ErrorContext } from '../lib/describe-error';

export function Loading({ label }: { label: string }) {
  return (
    <div className="state" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {label}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state empty" data-testid="empty-state">
      <p className="state-title">{title}</p>
      {children ? <p className="muted">{children}</p> : null}
    </div>
  );
}

export function ErrorNote({ error, context, onRetry }: { error: unknown; context?: ErrorContext; onRetry?: () => void }) {
  return (
    <div className="state error" role="alert" data-testid="error-state">
      <p>{describeError(error, context)}</p>
      {onRetry ? (
        <button type="button" className="secondary" onClick={onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}
