// A server's name as a link in a view's breadcrumb: named even when the view was reached
// directly (a reload of #/peers/N), not "server N".
import { useServerName } from '../names';

export function ServerCrumb({ id, to }: { id: number; to: string }) {
  const name = useServerName(id);
  return <a href={to} title={name}>{name}</a>;
}
