// The version the agent reports: wgcpd, wgcp and wgcp-agent share one (the repository's
// package.json; agent/package.json follows it). build.js puts agent/package.json's into the
// bundle, so that the OpenWrt build, which copies agent/ alone, has it too.
declare const WGCP_AGENT_VERSION: string | undefined;

export const VERSION: string = typeof WGCP_AGENT_VERSION === 'string' ? WGCP_AGENT_VERSION : 'unknown (not built by agent/build.js)';
