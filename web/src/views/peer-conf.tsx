// A peer's configuration: its QR code and its .conf saved under the peer's name; for a
// peer that brought its own keys, a .conf template to fill in with its private key.
import { useState } from 'preact/hooks';
import { describe, get, getFile } from '../api';
import { confTemplate, saveFile, tunnelFileName } from '../conf-file';
import type { Peer, Server } from '../types';
import { t } from '../i18n';

export function PeerConf({ peer, name }: { peer: Peer; name: string }) {
  const [error, setError] = useState('');
  const file = tunnelFileName(peer);
  const save = async () => {
    setError('');
    try {
      if (peer.hasPrivateKey) saveFile(file, (await getFile(`/api/peers/${peer.id}/config`)).blob);
      else saveFile(file, new Blob([confTemplate(peer, await get<Server>(`/api/servers/${peer.serverID}?peers=none`))], { type: 'text/plain' }));
    } catch (err) { setError(describe(err)); }
  };
  return (
    <>
      {peer.hasPrivateKey ? (
        <img class="qr" src={`/api/peers/${peer.id}/qrcode?v=${encodeURIComponent(peer.updatedAt)}`}
          alt={t('conf.qr', { name })} />
      ) : (
        <p id="conf-template-hint">{t('conf.template')}</p>
      )}
      <p>
        <button type="button" onClick={save} aria-describedby={peer.hasPrivateKey ? undefined : 'conf-template-hint'}>
          {peer.hasPrivateKey ? t('conf.download') : t('conf.downloadTemplate')}
        </button>
        {' '}<span class="hint">{t('conf.as')} <code>{file}</code></span>
      </p>
      {error && <p class="form-error" role="alert">{error}</p>}
    </>
  );
}
