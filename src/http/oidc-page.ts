// The small pages single sign-on answers with when it does not end signed in: a person
// whom no rule gives a role, and a sign-in that failed a check. Plain HTML that needs no
// script, with a link back to the page's sign-in.
import type { Reply } from './reply';

const HEADERS = {
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer', 'X-Content-Type-Options': 'nosniff', 'X-Frame-Options': 'DENY',
};

const escape = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(status: number, title: string, paragraphs: string[]): Reply {
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<meta name="referrer" content="no-referrer"><title>${escape(title)} · wgcp</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem}</style></head>
<body><main><h1>${escape(title)}</h1>${paragraphs.map((p) => `<p>${escape(p)}</p>`).join('')}
<p><a href="../../">Back to the sign-in</a></p></main></body></html>`;
  return { status, raw: body, type: 'text/html; charset=utf-8', headers: HEADERS };
}

/** 403: the provider knows the person, this router's role mapping gives them nothing. */
export function noRolePage(who: string): Reply {
  return page(403, 'No access to this router', [
    `You signed in as ${who}, but this router gives that account no role: none of its single sign-on rules (WGCP_OIDC_ROLES) matches your groups or email.`,
    'Ask whoever runs this router to add you to a group it maps to a role. You were not signed in.',
  ]);
}

/** 400 (or the provider's refusal): the sign-in did not pass a check; nothing was signed in. */
export function failedSignInPage(why: string, status = 400): Reply {
  return page(status, 'Sign-in failed', [why, 'Nothing was signed in. Start the sign-in again from the page.']);
}
