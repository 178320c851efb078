/**
 * Descriptions of the fields of built-in types for `kubectl explain`: the API documentation the
 * Tables already carry (`../tables/_field_docs.ts`), and short ones of our own for the fields
 * people look up most. Other fields have no description. Internal.
 * @module
 */
import { doc } from "../tables/_field_docs.ts";

const SHORT: Readonly<Record<string, string>> = {
  "PodSpec.containers":
    "List of containers belonging to the pod. There must be at least one container in a Pod. Cannot be updated.",
  "PodSpec.initContainers":
    "List of initialization containers belonging to the pod, run in order before the app containers start.",
  "PodSpec.volumes": "List of volumes that can be mounted by containers belonging to the pod.",
  "PodSpec.restartPolicy":
    "Restart policy for all containers within the pod. One of Always, OnFailure, Never. Default to Always.",
  "PodSpec.serviceAccountName":
    "ServiceAccountName is the name of the ServiceAccount to use to run this pod.",
  "PodSpec.nodeSelector":
    "NodeSelector is a selector which must be true for the pod to fit on a node: labels that must match the node's labels.",
  "PodSpec.tolerations": "If specified, the pod's tolerations.",
  "PodSpec.affinity": "If specified, the pod's scheduling constraints.",
  "Container.name":
    "Name of the container specified as a DNS_LABEL. Each container in a pod must have a unique name. Cannot be updated.",
  "Container.image": "Container image name.",
  "Container.command":
    "Entrypoint array. Not executed within a shell. The image's ENTRYPOINT is used if this is not provided.",
  "Container.args": "Arguments to the entrypoint. The image's CMD is used if this is not provided.",
  "Container.env": "List of environment variables to set in the container. Cannot be updated.",
  "Container.envFrom": "List of sources to populate environment variables in the container.",
  "Container.ports": "List of ports to expose from the container.",
  "Container.resources": "Compute Resources required by this container.",
  "Container.volumeMounts":
    "Pod volumes to mount into the container's filesystem. Cannot be updated.",
  "Container.livenessProbe":
    "Periodic probe of container liveness. Container will be restarted if the probe fails.",
  "Container.readinessProbe":
    "Periodic probe of container service readiness. Container will be removed from service endpoints if the probe fails.",
  "Container.imagePullPolicy": "Image pull policy. One of Always, Never, IfNotPresent.",
  "ContainerPort.containerPort":
    "Number of port to expose on the pod's IP address. This must be a valid port number, 0 < x < 65536.",
  "EnvVar.name": "Name of the environment variable.",
  "EnvVar.value":
    "Variable references $(VAR_NAME) are expanded using the previously defined environment variables in the container.",
  "EnvVar.valueFrom":
    "Source for the environment variable's value. Cannot be used if value is not empty.",
  "ResourceRequirements.limits":
    "Limits describes the maximum amount of compute resources allowed.",
  "ResourceRequirements.requests":
    "Requests describes the minimum amount of compute resources required.",
  "DeploymentSpec.replicas":
    "Number of desired pods. This is a pointer to distinguish between explicit zero and not specified. Defaults to 1.",
  "DeploymentSpec.selector":
    "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.",
  "DeploymentSpec.template": "Template describes the pods that will be created.",
  "DeploymentSpec.strategy":
    "The deployment strategy to use to replace existing pods with new ones.",
  "ReplicaSetSpec.replicas": "Replicas is the number of desired pods. Defaults to 1.",
  "StatefulSetSpec.replicas":
    "replicas is the desired number of replicas of the given Template. Defaults to 1.",
  "StatefulSetSpec.serviceName":
    "serviceName is the name of the service that governs this StatefulSet.",
  "StatefulSetSpec.volumeClaimTemplates":
    "volumeClaimTemplates is a list of claims that pods are allowed to reference.",
  "JobSpec.completions":
    "Specifies the desired number of successfully finished pods the job should be run with.",
  "JobSpec.parallelism":
    "Specifies the maximum desired number of pods the job should run at any given time.",
  "JobSpec.backoffLimit":
    "Specifies the number of retries before marking this job failed. Defaults to 6.",
  "JobSpec.template": "Describes the pod that will be created when executing a job.",
  "CronJobSpec.schedule": "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.",
  "CronJobSpec.jobTemplate": "Specifies the job that will be created when executing a CronJob.",
  "ServicePort.port": "The port that will be exposed by this service.",
  "ServicePort.targetPort":
    "Number or name of the port to access on the pods targeted by the service.",
  "IngressSpec.rules": "rules is a list of host rules used to configure the Ingress.",
};

/** The description of `type`'s `field`, if there is one. */
export function fieldDescription(type: string, field: string): string | undefined {
  const key = `${type}.${field}`;
  try {
    return doc(key);
  } catch {
    return Object.hasOwn(SHORT, key) ? SHORT[key] : undefined;
  }
}
