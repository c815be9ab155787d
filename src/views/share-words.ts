// The one-time config link's page in the reader's language: whoever opens the link may not
// read English, and has no dashboard (nor its catalogues) to choose one with, so the page
// follows the browser's Accept-Language among the dashboard's languages, else English.
// The JSON answer for a script (a dead link's `error`) stays English, as the API's do.

export const SHARE_LANGUAGES = ['en', 'de', 'fr', 'es', 'zh-CN'] as const;
export type ShareLanguage = (typeof SHARE_LANGUAGES)[number];

interface Words {
  title: string; heading: string; usedUp: string; keep: string; phone: string; phoneHow: string; qrAlt: string;
  computer: string; download: string; then: string; deadTitle: string; unknown: string; used: string; revoked: string; expired: string;
}

/** {name} and {file} are filled in (escaped) by the page. */
export const SHARE_WORDS: Record<ShareLanguage, Words> = {
  en: {
    title: 'WireGuard config: {name}', heading: 'WireGuard config for {name}', usedUp: 'This link worked once and is now used up.',
    keep: 'Save the config or scan the code before you leave this page.', phone: 'On a phone',
    phoneHow: 'In the WireGuard app, add a tunnel from a QR code and scan this:', qrAlt: 'QR code of the WireGuard config',
    computer: 'On a computer', download: 'Download {file}', then: 'Then import the file into WireGuard.', deadTitle: 'Config link not available',
    unknown: 'This link does not exist. Ask whoever sent it for a new one.',
    used: 'This link was opened already: a config link works once. Ask whoever sent it for a new one.',
    revoked: 'This link was revoked. Ask whoever sent it for a new one.', expired: 'This link has expired. Ask whoever sent it for a new one.',
  },
  de: {
    title: 'WireGuard-Konfiguration: {name}', heading: 'WireGuard-Konfiguration für {name}', usedUp: 'Dieser Link hat einmal funktioniert und ist jetzt verbraucht.',
    keep: 'Speichern Sie die Konfiguration oder scannen Sie den Code, bevor Sie diese Seite verlassen.', phone: 'Auf einem Telefon',
    phoneHow: 'Fügen Sie in der WireGuard-App einen Tunnel per QR-Code hinzu und scannen Sie diesen:', qrAlt: 'QR-Code der WireGuard-Konfiguration',
    computer: 'Auf einem Computer', download: '{file} herunterladen', then: 'Importieren Sie die Datei dann in WireGuard.', deadTitle: 'Konfigurationslink nicht verfügbar',
    unknown: 'Diesen Link gibt es nicht. Bitten Sie den Absender um einen neuen.',
    used: 'Dieser Link wurde schon geöffnet: ein Konfigurationslink funktioniert nur einmal. Bitten Sie den Absender um einen neuen.',
    revoked: 'Dieser Link wurde widerrufen. Bitten Sie den Absender um einen neuen.', expired: 'Dieser Link ist abgelaufen. Bitten Sie den Absender um einen neuen.',
  },
  fr: {
    title: 'Configuration WireGuard : {name}', heading: 'Configuration WireGuard de {name}', usedUp: 'Ce lien a servi une fois et n’est plus valable.',
    keep: 'Enregistrez la configuration ou scannez le code avant de quitter cette page.', phone: 'Sur un téléphone',
    phoneHow: 'Dans l’application WireGuard, ajoutez un tunnel à partir d’un code QR et scannez ceci :', qrAlt: 'Code QR de la configuration WireGuard',
    computer: 'Sur un ordinateur', download: 'Télécharger {file}', then: 'Importez ensuite le fichier dans WireGuard.', deadTitle: 'Lien de configuration indisponible',
    unknown: 'Ce lien n’existe pas. Demandez-en un nouveau à la personne qui l’a envoyé.',
    used: 'Ce lien a déjà été ouvert : un lien de configuration ne sert qu’une fois. Demandez-en un nouveau à la personne qui l’a envoyé.',
    revoked: 'Ce lien a été révoqué. Demandez-en un nouveau à la personne qui l’a envoyé.', expired: 'Ce lien a expiré. Demandez-en un nouveau à la personne qui l’a envoyé.',
  },
  es: {
    title: 'Configuración de WireGuard: {name}', heading: 'Configuración de WireGuard para {name}', usedUp: 'Este enlace funcionó una vez y ya está usado.',
    keep: 'Guarde la configuración o escanee el código antes de salir de esta página.', phone: 'En un teléfono',
    phoneHow: 'En la app de WireGuard, añada un túnel desde un código QR y escanee esto:', qrAlt: 'Código QR de la configuración de WireGuard',
    computer: 'En un ordenador', download: 'Descargar {file}', then: 'Después importe el archivo en WireGuard.', deadTitle: 'Enlace de configuración no disponible',
    unknown: 'Este enlace no existe. Pida uno nuevo a quien se lo envió.',
    used: 'Este enlace ya se abrió: un enlace de configuración funciona una vez. Pida uno nuevo a quien se lo envió.',
    revoked: 'Este enlace se revocó. Pida uno nuevo a quien se lo envió.', expired: 'Este enlace caducó. Pida uno nuevo a quien se lo envió.',
  },
  'zh-CN': {
    title: 'WireGuard 配置：{name}', heading: '{name} 的 WireGuard 配置', usedUp: '此链接已使用过一次，现已失效。',
    keep: '离开此页面前，请保存配置或扫描二维码。', phone: '在手机上',
    phoneHow: '在 WireGuard 应用中选择从二维码添加隧道，然后扫描：', qrAlt: 'WireGuard 配置的二维码',
    computer: '在电脑上', download: '下载 {file}', then: '然后将文件导入 WireGuard。', deadTitle: '配置链接不可用',
    unknown: '此链接不存在。请向发送者索取新链接。',
    used: '此链接已被打开过：配置链接只能使用一次。请向发送者索取新链接。',
    revoked: '此链接已被撤销。请向发送者索取新链接。', expired: '此链接已过期。请向发送者索取新链接。',
  },
};

/** The first language of an Accept-Language header ("de-AT,de;q=0.9,en;q=0.8") that the page has, by its q order; else English. */
export function shareLanguage(acceptLanguage: string | undefined): ShareLanguage {
  const wanted = (acceptLanguage ?? '').split(',').map((part, i) => {
    const [tag, ...params] = part.trim().split(';');
    const q = Number(/^q=([\d.]+)$/.exec(params.map((p) => p.trim()).find((p) => p.startsWith('q=')) ?? '')?.[1] ?? 1);
    return { tag: tag.trim().toLowerCase(), q: Number.isFinite(q) ? q : 0, i };
  }).filter((w) => w.tag && w.q > 0).sort((a, b) => b.q - a.q || a.i - b.i);
  for (const { tag } of wanted) {
    if (tag.startsWith('zh')) return 'zh-CN';
    const found = SHARE_LANGUAGES.find((l) => l === tag.split('-')[0]);
    if (found) return found;
  }
  return 'en';
}
