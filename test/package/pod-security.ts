/**
 * The controls of Kubernetes' Pod Security Standards, baseline and restricted levels (kubernetes.io, "Pod Security
 * Standards", as enforced by Pod Security Admission at `enforce-version: latest`), checked on a pod spec: what the API
 * server would refuse in a namespace labelled `pod-security.kubernetes.io/enforce: restricted`. No maintained npm
 * package checks them (the admission library is Go), so they are written out here, one function per control, each
 * returning its violations.
 */

type Json = Record<string, unknown>;

interface Container {
  name?: string;
  securityContext?: Json;
  ports?: { hostPort?: number }[];
}

export interface PodSpec {
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  securityContext?: Json;
  volumes?: Json[];
  containers?: Container[];
  initContainers?: Container[];
  ephemeralContainers?: Container[];
}

/** The volume types the restricted level allows. */
const RESTRICTED_VOLUMES = new Set([
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'persistentVolumeClaim',
  'projected',
  'secret',
]);
const SAFE_SYSCTLS = new Set([
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_local_reserved_ports',
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
]);

const get = (o: Json | undefined, key: string): unknown => o?.[key];
const allContainers = (pod: PodSpec): Container[] => [
  ...(pod.containers ?? []),
  ...(pod.initContainers ?? []),
  ...(pod.ephemeralContainers ?? []),
];
const label = (c: Container): string => `container ${c.name ?? '?'}`;

/** Baseline: no host namespaces, ports or paths, no privileged container, no unsafe sysctl or /proc mount. */
function baseline(pod: PodSpec): string[] {
  const out: string[] = [];
  for (const key of ['hostNetwork', 'hostPID', 'hostIPC'] as const) if (pod[key] === true) out.push(`${key}: true`);
  for (const v of pod.volumes ?? []) if ('hostPath' in v) out.push(`volume ${String(v.name)} is a hostPath`);
  for (const s of (get(pod.securityContext, 'sysctls') as { name: string }[] | undefined) ?? []) {
    if (!SAFE_SYSCTLS.has(s.name)) out.push(`sysctl ${s.name} is not a safe one`);
  }
  for (const c of allContainers(pod)) {
    const sc = c.securityContext;
    if (get(sc, 'privileged') === true) out.push(`${label(c)} is privileged`);
    if ((c.ports ?? []).some((p) => (p.hostPort ?? 0) !== 0)) out.push(`${label(c)} has a hostPort`);
    if (get(sc, 'procMount') !== undefined && get(sc, 'procMount') !== 'Default') out.push(`${label(c)}: procMount`);
    const seLinux = get(sc, 'seLinuxOptions') as Json | undefined;
    if (seLinux?.user !== undefined || seLinux?.role !== undefined)
      out.push(`${label(c)} sets an SELinux user or role`);
  }
  return out;
}

/** The seccomp profile of a container, or the pod's when it has none. */
function seccompOf(pod: PodSpec, c: Container): unknown {
  const own = get(get(c.securityContext, 'seccompProfile') as Json | undefined, 'type');
  return own ?? get(get(pod.securityContext, 'seccompProfile') as Json | undefined, 'type');
}

/** A container's own setting, else the pod's. */
function effective(pod: PodSpec, c: Container, key: string): unknown {
  return get(c.securityContext, key) ?? get(pod.securityContext, key);
}

/** Restricted, beyond baseline: volume types, non-root, no escalation, seccomp, capabilities. */
function restricted(pod: PodSpec): string[] {
  const out: string[] = [];
  for (const v of pod.volumes ?? []) {
    const type = Object.keys(v).find((k) => k !== 'name');
    if (type === undefined || !RESTRICTED_VOLUMES.has(type)) out.push(`volume ${String(v.name)}: type ${type}`);
  }
  if (get(pod.securityContext, 'runAsUser') === 0) out.push('the pod runs as uid 0');
  for (const c of allContainers(pod)) {
    if (effective(pod, c, 'runAsNonRoot') !== true) out.push(`${label(c)}: runAsNonRoot is not true`);
    if (get(c.securityContext, 'runAsUser') === 0) out.push(`${label(c)} runs as uid 0`);
    if (get(c.securityContext, 'allowPrivilegeEscalation') !== false) {
      out.push(`${label(c)}: allowPrivilegeEscalation is not false`);
    }
    const seccomp = seccompOf(pod, c);
    if (seccomp !== 'RuntimeDefault' && seccomp !== 'Localhost') out.push(`${label(c)}: seccomp profile ${seccomp}`);
    const caps = (get(c.securityContext, 'capabilities') as { drop?: string[]; add?: string[] } | undefined) ?? {};
    if (!(caps.drop ?? []).includes('ALL')) out.push(`${label(c)} does not drop ALL capabilities`);
    for (const cap of caps.add ?? []) if (cap !== 'NET_BIND_SERVICE') out.push(`${label(c)} adds capability ${cap}`);
  }
  return out;
}

/** Every control of the restricted level (baseline's included) that `pod` breaks; none when it would be admitted. */
export function restrictedViolations(pod: PodSpec): string[] {
  return [...baseline(pod), ...restricted(pod)];
}
