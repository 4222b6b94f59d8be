// The confirmation dialogs of a key's row actions on the Claves screen: reveal and rotate (each
// asking for the vault's passphrase when it needs one) and revoke.
import { useState } from 'react';
import type { ApiKeyViewDto } from '../../../../shared/ipc/contract';
import { useRevealKey, useRevokeKey, useRotateKey } from '../../api/hooks';
import { tpl, useI18n } from '../../i18n';
import { asksForPassphrase } from '../../lib/errors';
import { ErrorBanner } from '../../components/ui';
import { ConfirmDialog } from '../../components/Dialog';
import { useToast } from '../../components/Toast';
import { keyLabel } from '../../lib/key-label';
import { PassphraseField } from './PassphraseField';

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

  if (pending.kind !== 'revoke') {
    // Reveal and rotate hand out a working key: on a passphrase vault the core asks for the passphrase
    // first. That first answer only opens the field; later errors (a wrong one) are shown.
    const rotating = pending.kind === 'rotate';
    const step = rotating ? rotate : reveal;
    const showError = step.isError && (!asksForPassphrase(step.error) || step.variables?.passphrase !== undefined);
    const onError = (err: unknown) => {
      if (asksForPassphrase(err)) setNeedPassphrase(true);
    };
    const sent = needPassphrase ? passphrase : undefined;
    return (
      <ConfirmDialog
        title={rotating ? m.keys.rotateTitle : m.keys.revealTitle}
        okLabel={rotating ? m.keys.rotateOk : m.keys.reveal}
        // Rotating stops the current secret at once: a destructive step, confirmed on purpose.
        destructive={rotating}
        busy={step.isPending}
        okDisabled={needPassphrase && passphrase === ''}
        onCancel={onClose}
        onConfirm={() =>
          rotating
            ? rotate.mutate({ id: pending.key.id, passphrase: sent }, { onSuccess: (result) => onSecret('rotated', result.secret, result.key), onError })
            : reveal.mutate({ id: pending.key.id, confirm: true, passphrase: sent }, { onSuccess: (result) => onSecret('revealed', result.secret, pending.key), onError })
        }
      >
        <p>{tpl(rotating ? m.keys.rotateBody : m.keys.revealBody, { name })}</p>
        {needPassphrase ? <PassphraseField body={rotating ? m.keys.passphraseRotateBody : m.keys.passphraseBody} value={passphrase} onChange={setPassphrase} /> : null}
        {showError ? <ErrorBanner error={step.error} testId="key-action-error" /> : null}
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
