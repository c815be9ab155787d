// A peer's configuration: its QR code and its .conf saved under the peer's name; for a
// peer that brought its own keys, a .conf template to fill in with its private key.
import { useState } from 'preact/hooks';
import { describe, get, getFile } from '../api';
import { confTemplate, saveFile, tunnelFileName } from '../conf-file';
import type { Peer, Server } from '../types';

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
          alt={`QR code of the WireGuard configuration of ${name}: scan it with the WireGuard app`} />
      ) : (
        <p id="conf-template-hint">This peer brought its own keys: wgcp holds no private key, so it has no QR code. The template
          has everything else; put the peer's private key in it (and the preshared key, which the administrator has).</p>
      )}
      <p>
        <button type="button" onClick={save} aria-describedby={peer.hasPrivateKey ? undefined : 'conf-template-hint'}>
          {peer.hasPrivateKey ? 'Download the .conf file' : 'Download a .conf template'}
        </button>
        {' '}<span class="hint">as <code>{file}</code></span>
      </p>
      {error && <p class="form-error" role="alert">{error}</p>}
    </>
  );
}
