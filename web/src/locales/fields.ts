// The words of the resources' fields as the page shows them (a field's label, and its hint
// when it has one), every language in one place: a new field's words are one addition here,
// not one in each of five catalogues. English joins locales/en.ts (it is in the script); at
// build time web/build.mjs puts each other language's column into that language's catalogue
// (fetched when chosen) and gives the script only English's, so the first load carries no
// other language's words. test/web-i18n.test.ts checks that every key has every language.
// Keys keep the names the views use ('peerf.ip6', 'client.mtuLabel'). Words a view says of
// no one field (a form's title, a button, a check's refusal) stay in the catalogues, and so do
// the names many forms and tables share ('f.name', 'peers.col.address').
export const FIELD_WORDS = {
  'peerf.nameHint': {
    en: 'Who or what this is: a phone, a laptop.',
    de: 'Wer oder was das ist: ein Telefon, ein Laptop.',
    fr: 'Qui ou quoi : un téléphone, un portable.',
    es: 'Quién o qué es: un teléfono, un portátil.',
    'zh-CN': '这是谁或什么：一部手机、一台笔记本。',
  },
  'peerf.emailHint': {
    en: 'Optional: where its configuration can be mailed.',
    de: 'Optional: wohin seine Konfiguration gemailt werden kann.',
    fr: 'Facultatif : où envoyer sa configuration par e-mail.',
    es: 'Opcional: adónde enviar su configuración por correo.',
    'zh-CN': '可选：可将其配置发送到的邮箱。',
  },
  'peerf.internet': {
    en: 'Internet access through this router',
    de: 'Internetzugang über diesen Router',
    fr: 'Accès à Internet par ce routeur',
    es: 'Acceso a Internet por este router',
    'zh-CN': '通过此路由器访问互联网',
  },
  'peerf.internetHint': {
    en: 'Off unless ticked, as in the API: a new peer reaches the tunnel only until it is given more.',
    de: 'Aus, solange nicht angehakt, wie in der API: ein neuer Peer erreicht nur den Tunnel, bis er mehr bekommt.',
    fr: 'Désactivé sauf si coché, comme dans l’API : un nouveau pair n’atteint que le tunnel tant qu’on ne lui donne pas plus.',
    es: 'Desactivado salvo que se marque, como en la API: un par nuevo solo llega al túnel hasta que se le dé más.',
    'zh-CN': '除非勾选，否则关闭（与 API 一致）：新对等端只能访问隧道，直到给予更多权限。',
  },
  'peerf.ipHint': {
    en: 'Default: the next free address of the server\'s subnet.',
    de: 'Standard: die nächste freie Adresse im Subnetz des Servers.',
    fr: 'Par défaut : la prochaine adresse libre du sous-réseau du serveur.',
    es: 'Por defecto: la siguiente dirección libre de la subred del servidor.',
    'zh-CN': '默认：服务器子网中的下一个空闲地址。',
  },
  'peerf.ip6': {
    en: 'IPv6 address',
    de: 'IPv6-Adresse',
    fr: 'Adresse IPv6',
    es: 'Dirección IPv6',
    'zh-CN': 'IPv6 地址',
  },
  'peerf.ip6Hint': {
    en: 'Default: the next free address of the server\'s IPv6 prefix (none when the server is IPv4 only).',
    de: 'Standard: die nächste freie Adresse im IPv6-Präfix des Servers (keine, wenn der Server nur IPv4 hat).',
    fr: 'Par défaut : la prochaine adresse libre du préfixe IPv6 du serveur (aucune si le serveur est IPv4 seulement).',
    es: 'Por defecto: la siguiente dirección libre del prefijo IPv6 del servidor (ninguna si el servidor es solo IPv4).',
    'zh-CN': '默认：服务器 IPv6 前缀中的下一个空闲地址（服务器仅 IPv4 时无）。',
  },
  'peerf.publicKey': {
    en: 'Public key',
    de: 'Öffentlicher Schlüssel',
    fr: 'Clé publique',
    es: 'Clave pública',
    'zh-CN': '公钥',
  },
  'peerf.publicKeyHint': {
    en: 'Only for a peer that made its own keys; then wgcp has no QR code for it, only a .conf template.',
    de: 'Nur für einen Peer mit eigenen Schlüsseln; dann hat wgcp keinen QR-Code dafür, nur eine .conf-Vorlage.',
    fr: 'Seulement pour un pair qui a créé ses propres clés ; wgcp n’a alors pas de code QR pour lui, seulement un modèle .conf.',
    es: 'Solo para un par que creó sus propias claves; entonces wgcp no tiene código QR para él, solo una plantilla .conf.',
    'zh-CN': '仅用于自带密钥的对等端；此时 wgcp 没有它的二维码，只有 .conf 模板。',
  },
  'peerf.limit': {
    en: 'Monthly data limit (GiB)',
    de: 'Monatliches Datenlimit (GiB)',
    fr: 'Limite de données mensuelle (Gio)',
    es: 'Límite mensual de datos (GiB)',
    'zh-CN': '每月流量上限 (GiB)',
  },
  'peerf.limitHint': {
    en: '1 GiB is {bytes} bytes; tenths are taken (1.5). 0 means no limit.',
    de: '1 GiB sind {bytes} Bytes; Zehntel sind möglich (1,5). 0 heißt kein Limit.',
    fr: '1 Gio vaut {bytes} octets ; les dixièmes sont acceptés (1,5). 0 signifie aucune limite.',
    es: '1 GiB son {bytes} bytes; se admiten décimas (1,5). 0 significa sin límite.',
    'zh-CN': '1 GiB 为 {bytes} 字节；可填一位小数（1.5）。0 表示不限。',
  },
  'peerf.expiryHint': {
    en: 'When this time passes, the peer and its keys are deleted (not only switched off). Empty: never.',
    de: 'Ist dieser Zeitpunkt vorbei, werden der Peer und seine Schlüssel gelöscht (nicht nur ausgeschaltet). Leer: nie.',
    fr: 'Passé ce moment, le pair et ses clés sont supprimés (pas seulement désactivés). Vide : jamais.',
    es: 'Pasado este momento, el par y sus claves se eliminan (no solo se apagan). Vacío: nunca.',
    'zh-CN': '到了这个时间，对等端及其密钥会被删除（不只是关闭）。留空：永不。',
  },
  'peerf.expiryOperator': {
    en: 'Only an admin may set one or make it sooner; you may postpone or clear it.',
    de: 'Nur ein Admin darf ihn setzen oder vorziehen; Sie dürfen ihn verschieben oder löschen.',
    fr: 'Seul un admin peut en fixer une ou l’avancer ; vous pouvez la repousser ou l’effacer.',
    es: 'Solo un admin puede fijarla o adelantarla; usted puede aplazarla o quitarla.',
    'zh-CN': '只有管理员可以设置或提前；你可以推迟或清除它。',
  },
  'client.networksLabel': {
    en: 'Networks behind',
    de: 'Netze dahinter',
    fr: 'Réseaux derrière',
    es: 'Redes detrás',
    'zh-CN': '后方网络',
  },
  'client.dnsLabel': {
    en: 'Client DNS',
    de: 'Client-DNS',
    fr: 'DNS du client',
    es: 'DNS del cliente',
    'zh-CN': '客户端 DNS',
  },
  'client.routesLabel': {
    en: 'Client routes',
    de: 'Client-Routen',
    fr: 'Routes du client',
    es: 'Rutas del cliente',
    'zh-CN': '客户端路由',
  },
  'client.keepaliveLabel': {
    en: 'Keepalive',
    de: 'Keepalive',
    fr: 'Keepalive',
    es: 'Keepalive',
    'zh-CN': 'Keepalive',
  },
  'client.mtuLabel': {
    en: 'Client MTU',
    de: 'Client-MTU',
    fr: 'MTU du client',
    es: 'MTU del cliente',
    'zh-CN': '客户端 MTU',
  },
  'speed.down': {
    en: 'Download limit (Mbit/s)',
    de: 'Download-Limit (Mbit/s)',
    fr: 'Limite de téléchargement (Mbit/s)',
    es: 'Límite de descarga (Mbit/s)',
    'zh-CN': '下载限速 (Mbit/s)',
  },
  'speed.up': {
    en: 'Upload limit (Mbit/s)',
    de: 'Upload-Limit (Mbit/s)',
    fr: 'Limite d’envoi (Mbit/s)',
    es: 'Límite de subida (Mbit/s)',
    'zh-CN': '上传限速 (Mbit/s)',
  },
  'speed.hint': {
    en: 'Seen from the peer: download is what this router sends it. 0.1 to 10000; empty means no limit.',
    de: 'Aus Sicht des Peers: Download ist, was dieser Router ihm sendet. 0,1 bis 10000; leer heißt kein Limit.',
    fr: 'Vu du pair : le téléchargement est ce que ce routeur lui envoie. 0,1 à 10000 ; vide signifie aucune limite.',
    es: 'Visto desde el par: la descarga es lo que este router le envía. 0,1 a 10000; vacío significa sin límite.',
    'zh-CN': '从对等端看：下载是本路由器发给它的流量。0.1 到 10000；留空表示不限。',
  },
  'client.networks': {
    en: 'Prefixes behind this peer (its LAN), routed to it; separated by commas',
    de: 'Präfixe hinter diesem Peer (sein LAN), zu ihm geroutet; durch Kommas getrennt',
    fr: 'Préfixes derrière ce pair (son réseau local), routés vers lui ; séparés par des virgules',
    es: 'Prefijos detrás de este par (su LAN), enrutados hacia él; separados por comas',
    'zh-CN': '此对等端后面的前缀（其局域网），路由到它；用逗号分隔',
  },
  'client.dns': {
    en: 'Addresses separated by commas; "none" for no DNS; empty: the server\'s',
    de: 'Adressen durch Kommas getrennt; "none" für kein DNS; leer: die des Servers',
    fr: 'Adresses séparées par des virgules ; "none" pour aucun DNS ; vide : celles du serveur',
    es: 'Direcciones separadas por comas; "none" para ningún DNS; vacío: las del servidor',
    'zh-CN': '用逗号分隔的地址；"none" 表示不设 DNS；留空：用服务器的',
  },
  'client.routes': {
    en: '"full", "split" (the server\'s networks) or prefixes; empty: the server\'s',
    de: '"full", "split" (die Netze des Servers) oder Präfixe; leer: die des Servers',
    fr: '"full", "split" (les réseaux du serveur) ou des préfixes ; vide : ceux du serveur',
    es: '"full", "split" (las redes del servidor) o prefijos; vacío: las del servidor',
    'zh-CN': '"full"、"split"（服务器的网络）或前缀；留空：用服务器的',
  },
  'client.keepalive': {
    en: 'Seconds; 0: off; empty: the server\'s',
    de: 'Sekunden; 0: aus; leer: der des Servers',
    fr: 'Secondes ; 0 : désactivé ; vide : celui du serveur',
    es: 'Segundos; 0: apagado; vacío: el del servidor',
    'zh-CN': '秒；0：关闭；留空：用服务器的',
  },
  'client.mtu': {
    en: '1280 to 9000; empty: the server\'s',
    de: '1280 bis 9000; leer: die des Servers',
    fr: '1280 à 9000 ; vide : celle du serveur',
    es: '1280 a 9000; vacío: la del servidor',
    'zh-CN': '1280 到 9000；留空：用服务器的',
  },
} as const satisfies Record<string, Record<'en' | 'de' | 'fr' | 'es' | 'zh-CN', string>>;

export type FieldWordKey = keyof typeof FIELD_WORDS;

/** One language's column: key to words. */
export const fieldWordsIn = (lang: 'en' | 'de' | 'fr' | 'es' | 'zh-CN'): Record<FieldWordKey, string> =>
  Object.fromEntries(Object.entries(FIELD_WORDS).map(([k, w]) => [k, w[lang]])) as Record<FieldWordKey, string>;
