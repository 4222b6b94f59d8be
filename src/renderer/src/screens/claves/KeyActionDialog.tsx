// The confirmation dialogs of a key's row actions on the Claves screen: reveal (asking for the
// vault's passphrase when it needs one), rotate and revoke.
import { useId, useState } from 'react';
import type { ApiKeyViewDto } from '../../../../shared/ipc/contract';
import { useRevealKey, useRevokeKey, useRotateKey } from '../../api/hooks';
import { tpl, useI18n } from '../../i18n';
import { asksForPassphrase } from '../../lib/errors';
import { ErrorBanner } from '../../components/ui';
import { ConfirmDialog } from '../../components/Dialog';
import { useToast } from '../../components/Toast';
import { keyLabel } from '../../lib/key-label';

export type Pending = { kind: 'reveal' | 'rotate' | 'revoke'; key: ApiKeyViewDto };

export function KeyActionDialog({
  pending,
  onClose,
  onSecret,
}: {
  pending: Pending;
  onClose: () => void;
  onSecret: (kind: 'rotated' | 'revealed', secret: string, key: ApiKeyViewDto) => void;
}) {
  const { m } = useI18n();
  const toast = useToast();
  const reveal = useRevealKey();
  const rotate = useRotateKey();
  const revoke = useRevokeKey();
  const [needPassphrase, setNeedPassphrase] = useState(false);
  const [passphrase, setPassphrase] = useState('');
  const name = keyLabel(pending.key, m.keys.unnamed);
  const passId = useId();

  if (pending.kind === 'reveal') {
    const error = reveal.error;
    // The first "passphrase required" answer only opens the field; later errors (a wrong one) are shown.
    const showError = reveal.isError && (!asksForPassphrase(error) || reveal.variables?.passphrase !== undefined);
    return (
      <ConfirmDialog
        title={m.keys.revealTitle}
        okLabel={m.keys.reveal}
        busy={reveal.isPending}
        okDisabled={needPassphrase && passphrase === ''}
        onCancel={onClose}
        onConfirm={() =>
          reveal.mutate(
            { id: pending.key.id, confirm: true, passphrase: needPassphrase ? passphrase : undefined },
            {
              onSuccess: (result) => onSecret('revealed', result.secret, pending.key),
              onError: (err) => {
                if (asksForPassphrase(err)) setNeedPassphrase(true);
              },
            },
          )
        }
      >
        <p>{tpl(m.keys.revealBody, { name })}</p>
        {needPassphrase ? (
          <div className="field">
            <p className="muted small">{m.keys.passphraseBody}</p>
            <label className="field-label" htmlFor={passId}>
              {m.keys.passphrase}
            </label>
            <input id={passId} type="password" className="input" value={passphrase} onChange={(e) => setPassphrase(e.target.value)} autoComplete="current-password" autoFocus data-testid="key-passphrase" />
          </div>
        ) : null}
        {showError ? <ErrorBanner error={error} testId="key-action-error" /> : null}
      </ConfirmDialog>
    );
  }

  if (pending.kind === 'rotate') {
    return (
      <ConfirmDialog
        title={m.keys.rotateTitle}
        okLabel={m.keys.rotateOk}
        // The current secret stops working at once: a destructive step, confirmed on purpose.
        destructive
        busy={rotate.isPending}
        onCancel={onClose}
        onConfirm={() => rotate.mutate({ id: pending.key.id }, { onSuccess: (result) => onSecret('rotated', result.secret, result.key) })}
      >
        <p>{tpl(m.keys.rotateBody, { name })}</p>
        {rotate.isError ? <ErrorBanner error={rotate.error} testId="key-action-error" /> : null}
      </ConfirmDialog>
    );
  }

  return (
    <ConfirmDialog
      title={m.keys.revokeTitle}
      okLabel={m.keys.revokeOk}
      destructive
      busy={revoke.isPending}
      onCancel={onClose}
      onConfirm={() =>
        revoke.mutate(
          { id: pending.key.id },
          {
            onSuccess: () => {
              toast((t) => t.m.keys.revoked);
              onClose();
            },
          },
        )
      }
    >
      <p>{tpl(m.keys.revokeBody, { name })}</p>
      {revoke.isError ? <ErrorBanner error={revoke.error} testId="key-action-error" /> : null}
    </ConfirmDialog>
  );
}
