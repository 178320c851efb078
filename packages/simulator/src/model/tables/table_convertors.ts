/**
 * Which Table convertor a served resource gets: kube-apiserver's printer for the built-in kinds
 * that have one, the `Name`/`Created At` default for other built-in kinds, and a custom
 * resource's printer columns (or `Age`) otherwise.
 * @module
 */
import {
  CONFIG_MAP_TABLE,
  ENDPOINTS_TABLE,
  EVENT_TABLE,
  INGRESS_TABLE,
  LEASE_TABLE,
  NAMESPACE_TABLE,
  NODE_TABLE,
  PERSISTENT_VOLUME_CLAIM_TABLE,
  PERSISTENT_VOLUME_TABLE,
  SECRET_TABLE,
  SERVICE_ACCOUNT_TABLE,
  SERVICE_TABLE,
} from "./core_printers.ts";
import { POD_TABLE } from "./pod_printer.ts";
import { type PrinterColumn, printerColumnsConvertor } from "./printer_columns.ts";
import { DEFAULT_CONVERTOR, type TableConvertor } from "./table_convertor.ts";
import {
  CRON_JOB_TABLE,
  DAEMON_SET_TABLE,
  DEPLOYMENT_TABLE,
  JOB_TABLE,
  REPLICA_SET_TABLE,
  REPLICATION_CONTROLLER_TABLE,
  STATEFUL_SET_TABLE,
} from "./workload_printers.ts";

/** Printers of built-in kinds, by `group/Kind` (`/Pod` for the core group). */
const PRINTERS: ReadonlyMap<string, TableConvertor> = new Map([
  ["/Pod", POD_TABLE],
  ["/Service", SERVICE_TABLE],
  ["/Endpoints", ENDPOINTS_TABLE],
  ["/Node", NODE_TABLE],
  ["/Namespace", NAMESPACE_TABLE],
  ["/Secret", SECRET_TABLE],
  ["/ServiceAccount", SERVICE_ACCOUNT_TABLE],
  ["/ConfigMap", CONFIG_MAP_TABLE],
  ["/PersistentVolume", PERSISTENT_VOLUME_TABLE],
  ["/PersistentVolumeClaim", PERSISTENT_VOLUME_CLAIM_TABLE],
  ["/Event", EVENT_TABLE],
  ["/ReplicationController", REPLICATION_CONTROLLER_TABLE],
  ["events.k8s.io/Event", EVENT_TABLE],
  ["apps/Deployment", DEPLOYMENT_TABLE],
  ["apps/ReplicaSet", REPLICA_SET_TABLE],
  ["apps/StatefulSet", STATEFUL_SET_TABLE],
  ["apps/DaemonSet", DAEMON_SET_TABLE],
  ["batch/Job", JOB_TABLE],
  ["batch/CronJob", CRON_JOB_TABLE],
  ["networking.k8s.io/Ingress", INGRESS_TABLE],
  ["coordination.k8s.io/Lease", LEASE_TABLE],
]);

/**
 * The API groups kube-apiserver serves itself (anything else is a custom resource's group).
 * Their kinds without a printer get the default `Name`/`Created At` Table.
 */
export const BUILTIN_GROUPS: ReadonlySet<string> = new Set([
  "",
  "admissionregistration.k8s.io",
  "apiextensions.k8s.io",
  "apiregistration.k8s.io",
  "apps",
  "authentication.k8s.io",
  "authorization.k8s.io",
  "autoscaling",
  "batch",
  "certificates.k8s.io",
  "coordination.k8s.io",
  "discovery.k8s.io",
  "events.k8s.io",
  "flowcontrol.apiserver.k8s.io",
  "networking.k8s.io",
  "node.k8s.io",
  "policy",
  "rbac.authorization.k8s.io",
  "resource.k8s.io",
  "scheduling.k8s.io",
  "storage.k8s.io",
  "storagemigration.k8s.io",
]);

/**
 * The Table convertor of a resource: `printerColumns` (a CRD version's) for a custom resource,
 * the built-in printer of `group`/`kind`, or the default.
 */
export function tableConvertorFor(
  group: string,
  kind: string,
  printerColumns: readonly PrinterColumn[] | undefined,
): TableConvertor {
  if (!BUILTIN_GROUPS.has(group)) return printerColumnsConvertor(printerColumns ?? []);
  return PRINTERS.get(`${group}/${kind}`) ?? DEFAULT_CONVERTOR;
}
