#!/usr/bin/env python3
"""Checks MPIJob manifests as a Kubernetes cluster with the Kubeflow MPI Operator would.

usage: validate_mpijob.py [--crd CRD.yaml] FILE... ('-' reads standard input)

Three layers, each reported as one line per problem, `FILE: PATH: what is wrong`:
1. the CRD's openAPIV3Schema (kubeflow.org_mpijobs.yaml, version v2beta1), strictly: an
   unknown field is an error, as under the API server's strict field validation (kubectl's
   default); null values are dropped first, as the API server prunes them;
2. the operator's own rules (mpi-operator pkg/apis/kubeflow/validation, applied to the job
   after the operator's defaulting): one launcher, workers >= 1, restart policies Never or
   OnFailure, cleanPodPolicy, mpiImplementation, the name a DNS-1035 label and
   `<name>-worker-<N-1>` a DNS label, non-negative runPolicy numbers. Stricter here, as each is
   a job that cannot work: slotsPerWorker >= 1, replica types other than Launcher/Worker, and
   launcherCreationPolicy values;
3. what the API server refuses when the operator creates the pods (ObjectMeta, names, images,
   ports, volume mounts against volumes and against the operator's own mounts, resources).

Exit status: 0 all valid; 1 problems found; 2 nothing could be checked (usage, missing CRD,
unreadable file, YAML syntax, python3-jsonschema or python3-yaml missing).
"""

import copy
import fractions
import os
import re
import sys

try:
    import jsonschema
    import yaml
except ImportError as e:  # Debian: apt-get install python3-jsonschema python3-yaml
    print(f"validate_mpijob.py: {e} (install python3-jsonschema python3-yaml)", file=sys.stderr)
    sys.exit(2)

DEFAULT_CRD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                           "shared", "k8s", "kubeflow.org_mpijobs.yaml")

# What the API server accepts in metadata (ObjectMeta) of an object a user creates.
OBJECT_META = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string"},
        "generateName": {"type": "string"},
        "namespace": {"type": "string"},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
        "finalizers": {"type": "array", "items": {"type": "string"}},
        "ownerReferences": {"type": "array", "items": {"type": "object"}},
        "creationTimestamp": {"type": ["string", "null"]},
        "uid": {"type": "string"},
        "resourceVersion": {"type": "string"},
        "generation": {"type": "integer"},
    },
}

DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
DNS1035_LABEL = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
QUANTITY = re.compile(r"^([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
                      r"(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$")
SUFFIX = {"": 1, "n": fractions.Fraction(1, 10**9), "u": fractions.Fraction(1, 10**6),
          "m": fractions.Fraction(1, 1000), "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12,
          "P": 10**15, "E": 10**18, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40,
          "Pi": 2**50, "Ei": 2**60}
# Volumes and mount paths the operator adds to every pod's first container.
OPERATOR_VOLUMES = ("ssh-auth", "mpi-job-config")
OPERATOR_CONFIG_MOUNT = "/etc/mpi"


def is_label(text, pattern=DNS1123_LABEL):
    return isinstance(text, str) and len(text) <= 63 and bool(pattern.match(text))


def render_path(parts):
    """spec.mpiReplicaSpecs[Worker].template.spec.containers[0].resources.limits[nvidia.com/gpu]"""
    out = ""
    for i, part in enumerate(parts):
        if isinstance(part, int):
            out += f"[{part}]"
        elif (i > 0 and parts[i - 1] == "mpiReplicaSpecs") or "/" in part or "." in part:
            out += f"[{part}]"
        else:
            out += ("." if out else "") + part
    return out or "(document)"


# ---- 1. the CRD's schema, strictly -----------------------------------------------------------

def strict(schema):
    """Closes every object schema that neither lists additionalProperties nor preserves unknown
    fields: what the API server prunes (or, strictly, refuses) becomes an error here."""
    if isinstance(schema, dict):
        is_object = schema.get("type") == "object" or "properties" in schema
        if (is_object and "additionalProperties" not in schema
                and not schema.get("x-kubernetes-preserve-unknown-fields")):
            schema["additionalProperties"] = False
        for key, value in schema.items():
            if key == "properties":
                for sub in value.values():
                    strict(sub)
            elif key != "enum" and key != "default":
                strict(value)
    elif isinstance(schema, list):
        for item in schema:
            strict(item)
    return schema


def load_schema(crd_path):
    with open(crd_path, encoding="utf-8") as f:
        crd = yaml.safe_load(f)
    for version in crd["spec"]["versions"]:
        if version["name"] == "v2beta1":
            schema = strict(copy.deepcopy(version["schema"]["openAPIV3Schema"]))
            schema["properties"]["metadata"] = OBJECT_META
            return schema
    raise KeyError(f"{crd_path}: no version v2beta1")


FORMATS = jsonschema.FormatChecker(formats=())


@FORMATS.checks("int32")
def _int32(value):
    return not isinstance(value, int) or -2**31 <= value < 2**31


@FORMATS.checks("int64")
def _int64(value):
    return not isinstance(value, int) or -2**63 <= value < 2**63


def drop_nulls(node):
    if isinstance(node, dict):
        return {k: drop_nulls(v) for k, v in node.items() if v is not None}
    if isinstance(node, list):
        return [drop_nulls(v) for v in node]
    return node


def schema_message(error):
    kind, schema, value = error.validator, error.schema, error.instance
    if kind == "type":
        return f"must be of type {error.validator_value} (got {type_name(value)})"
    if kind == "enum":
        return f'unsupported value "{value}"; allowed: {", ".join(map(str, schema["enum"]))}'
    if kind in ("anyOf", "pattern") and schema.get("x-kubernetes-int-or-string"):
        return f"{value!r} is not a quantity (a number, or a string such as 500m, 4Gi)"
    if kind == "format":
        return f"{value} is out of the {error.validator_value} range"
    return error.message


def type_name(value):
    return {dict: "object", list: "array", str: "string", bool: "boolean", int: "integer",
            float: "number"}.get(type(value), type(value).__name__)


def schema_problems(doc, validator):
    problems = []
    for error in validator.iter_errors(doc):
        path = list(error.absolute_path)
        if error.validator == "additionalProperties" and error.validator_value is False:
            known = set(error.schema.get("properties", {}))
            for key in sorted(set(error.instance) - known):
                problems.append((path + [key], f'unknown field "{key}"'))
        elif error.validator == "required":
            missing = re.match(r"'(.*)' is a required property", error.message)
            problems.append((path + [missing.group(1)] if missing else path, "required"))
        else:
            problems.append((path, schema_message(error)))
    return problems


# ---- 2. the operator's rules -----------------------------------------------------------------

def obj(value):
    return value if isinstance(value, dict) else {}


def operator_defaults(doc):
    """The operator's SetDefaults_MPIJob, on a copy."""
    doc = copy.deepcopy(doc)
    spec = doc.setdefault("spec", {}) if isinstance(doc.get("spec"), dict) else {}
    run_policy = spec.setdefault("runPolicy", {}) if isinstance(spec.get("runPolicy", {}),
                                                                 dict) else {}
    run_policy.setdefault("cleanPodPolicy", "None")
    spec.setdefault("slotsPerWorker", 1)
    if not spec.get("sshAuthMountPath"):
        spec["sshAuthMountPath"] = "/root/.ssh"
    if not spec.get("mpiImplementation"):
        spec["mpiImplementation"] = "OpenMPI"
    if not spec.get("launcherCreationPolicy"):
        spec["launcherCreationPolicy"] = "AtStartup"
    for role, restart, replicas in (("Launcher", "OnFailure", 1), ("Worker", "Never", 0)):
        replica = obj(obj(spec.get("mpiReplicaSpecs")).get(role))
        if not replica.get("restartPolicy"):
            replica["restartPolicy"] = restart
        replica.setdefault("replicas", replicas)
    return doc


def name_problems(doc):
    meta, spec = obj(doc.get("metadata")), obj(doc.get("spec"))
    name, namespace = meta.get("name"), meta.get("namespace")
    problems = []
    if not name:
        return [(["metadata", "name"], "required: kubectl apply needs a name")]
    if not is_label(name, DNS1035_LABEL):
        problems.append((["metadata", "name"], f'"{name}" must be a DNS-1035 label: lower-case '
                         "letters, digits and '-', starting with a letter and ending with a "
                         "letter or digit, at most 63 characters"))
    workers = obj(obj(spec.get("mpiReplicaSpecs")).get("Worker")).get("replicas")
    workers = workers if isinstance(workers, int) and workers > 0 else 1
    host = f"{name}-worker-{workers - 1}"
    if len(host) > 63:
        problems.append((["metadata", "name"], f'the last worker pod would be "{host}", '
                         f"{len(host)} characters: a pod host name (DNS label) has at most 63"))
    if namespace is not None and not is_label(namespace):
        problems.append((["metadata", "namespace"], f'"{namespace}" must be a DNS-1123 label'))
    return problems


def spec_problems(spec):
    problems = []

    def allowed(key, value, choices, path=None):
        if value not in choices:
            problems.append((path or ["spec", key],
                             f'unsupported value "{value}"; allowed: {", ".join(choices)}'))

    slots = spec.get("slotsPerWorker")
    if isinstance(slots, int) and slots < 1:
        problems.append((["spec", "slotsPerWorker"],
                         f"must be at least 1 (got {slots}): the hostfile's slots per worker"))
    run_policy = obj(spec.get("runPolicy"))
    allowed("cleanPodPolicy", run_policy.get("cleanPodPolicy"), ("None", "Running", "All"),
            ["spec", "runPolicy", "cleanPodPolicy"])
    for key in ("ttlSecondsAfterFinished", "activeDeadlineSeconds", "backoffLimit"):
        value = run_policy.get(key)
        if isinstance(value, int) and value < 0:
            problems.append((["spec", "runPolicy", key], f"must be 0 or more (got {value})"))
    if "managedBy" in run_policy:
        allowed("managedBy", run_policy["managedBy"],
                ("kubeflow.org/mpi-operator", "kueue.x-k8s.io/multikueue"),
                ["spec", "runPolicy", "managedBy"])
    allowed("mpiImplementation", spec.get("mpiImplementation"), ("OpenMPI", "Intel", "MPICH"))
    allowed("launcherCreationPolicy", spec.get("launcherCreationPolicy"),
            ("AtStartup", "WaitForWorkersReady"))
    ssh = spec.get("sshAuthMountPath")
    if isinstance(ssh, str) and not ssh.startswith("/"):
        problems.append((["spec", "sshAuthMountPath"], f'"{ssh}" must be an absolute path'))
    return problems


def replica_problems(spec):
    path = ["spec", "mpiReplicaSpecs"]
    specs = spec.get("mpiReplicaSpecs")
    if not isinstance(specs, dict):
        return [(path, "required: must have replica specs")]
    problems = [(path + [role], "unknown replica type; allowed: Launcher, Worker")
                for role in specs if role not in ("Launcher", "Worker")]
    if not isinstance(specs.get("Launcher"), dict):
        problems.append((path + ["Launcher"], "required: must have a Launcher replica spec"))
    for role in ("Launcher", "Worker"):
        replica = specs.get(role)
        if not isinstance(replica, dict):
            continue
        here = path + [role]
        restart, replicas = replica.get("restartPolicy"), replica.get("replicas")
        if restart not in ("Never", "OnFailure"):
            problems.append((here + ["restartPolicy"],
                             f'unsupported value "{restart}"; allowed: Never, OnFailure'))
        if role == "Launcher" and isinstance(replicas, int) and replicas != 1:
            problems.append((here + ["replicas"], f"must be 1 (got {replicas}): one launcher"))
        if role == "Worker" and isinstance(replicas, int) and replicas < 1:
            problems.append((here + ["replicas"], f"must be at least 1 (got {replicas})"))
        template = obj(replica.get("template"))
        problems += pod_problems(obj(template.get("spec")), here + ["template", "spec"],
                                 spec.get("sshAuthMountPath"))
    return problems


# ---- 3. the pods, as the API server checks them when the operator creates them ---------------

def quantity(value):
    if isinstance(value, int):
        return fractions.Fraction(value)
    match = QUANTITY.match(value) if isinstance(value, str) else None
    if not match:
        return None
    sign, number, suffix = match.groups()
    scale = (fractions.Fraction(10) ** int(suffix[1:]) if suffix and suffix[0] in "eE"
             else SUFFIX[suffix or ""])
    return fractions.Fraction(number) * scale * (-1 if sign == "-" else 1)


def resource_problems(resources, path):
    problems = []
    requests, limits = obj(resources.get("requests")), obj(resources.get("limits"))
    for kind, amounts in (("requests", requests), ("limits", limits)):
        for name, value in amounts.items():
            amount = quantity(value)
            if amount is not None and amount < 0:
                problems.append((path + [kind, name], f"{value!r} must not be negative"))
            elif amount is not None and "/" in name and amount.denominator != 1:
                problems.append((path + [kind, name], f"{value!r} must be a whole number"))
    for name, value in requests.items():
        request, limit = quantity(value), quantity(limits.get(name, value))
        extended = "/" in name and not name.startswith("kubernetes.io/")
        if extended and (name not in limits or request != limit):
            problems.append((path + ["requests", name],
                             f"must equal limits[{name}] (a device cannot be overcommitted)"))
        elif request is not None and limit is not None and request > limit:
            problems.append((path + ["requests", name],
                             f"{value!r} is more than the limit {limits[name]!r}"))
    return problems


def container_problems(container, path, volumes, first, ssh_path):
    problems = []
    name, image = container.get("name"), container.get("image")
    if not is_label(name):
        problems.append((path + ["name"], f"{name!r} must be a DNS-1123 label"))
    if not isinstance(image, str) or not image.strip() or image != image.strip():
        problems.append((path + ["image"], "required: a container image without surrounding "
                         "spaces"))
    for i, port in enumerate(container.get("ports") or []):
        number, port_name = obj(port).get("containerPort"), obj(port).get("name")
        if isinstance(number, int) and not 0 < number < 65536:
            problems.append((path + ["ports", i, "containerPort"], f"{number} is not a port"))
        if port_name is not None and not (isinstance(port_name, str) and len(port_name) <= 15
                                          and re.match(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
                                                       port_name)
                                          and "--" not in port_name
                                          and re.search("[a-z]", port_name)):
            problems.append((path + ["ports", i, "name"], f'"{port_name}" must be an IANA '
                             "service name: at most 15 lower-case letters, digits and '-'"))
    taken = {ssh_path, OPERATOR_CONFIG_MOUNT} if first else set()
    for i, mount in enumerate(container.get("volumeMounts") or []):
        mount = obj(mount)
        if mount.get("name") not in volumes:
            problems.append((path + ["volumeMounts", i, "name"],
                             f'"{mount.get("name")}" is not a volume of the pod'))
        mount_path = mount.get("mountPath")
        if not isinstance(mount_path, str) or not mount_path.startswith("/"):
            problems.append((path + ["volumeMounts", i, "mountPath"],
                             f"{mount_path!r} must be an absolute path"))
        elif mount_path in taken:
            problems.append((path + ["volumeMounts", i, "mountPath"], f'"{mount_path}" is '
                             "mounted twice (the operator mounts its ssh keys and hostfile "
                             "there)"))
        taken.add(mount_path)
    return problems + resource_problems(obj(container.get("resources")), path + ["resources"])


def pod_problems(pod, path, ssh_path):
    containers = pod.get("containers")
    if not isinstance(containers, list) or not containers:
        return [(path + ["containers"], "required: must define at least one container")]
    problems = []
    restart = pod.get("restartPolicy")
    if restart is not None and restart not in ("Always", "OnFailure", "Never"):
        problems.append((path + ["restartPolicy"],
                         f'unsupported value "{restart}"; allowed: Always, OnFailure, Never'))
    volumes = set()
    for i, volume in enumerate(pod.get("volumes") or []):
        name = obj(volume).get("name")
        if not is_label(name) or name in volumes or name in OPERATOR_VOLUMES:
            problems.append((path + ["volumes", i, "name"], f"{name!r} must be a DNS-1123 "
                             "label, unique, and not one of the operator's: "
                             + ", ".join(OPERATOR_VOLUMES)))
        volumes.add(name)
    names = set()
    for key in ("initContainers", "containers"):
        for i, container in enumerate(pod.get(key) or []):
            container = obj(container)
            if container.get("name") in names:
                problems.append((path + [key, i, "name"], "duplicate container name"))
            names.add(container.get("name"))
            first = key == "containers" and i == 0
            problems += container_problems(container, path + [key, i], volumes, first, ssh_path)
    return problems


# ---- the command line ------------------------------------------------------------------------

def document_problems(doc, validator):
    if not isinstance(doc, dict):
        return [([], "not a mapping: an MPIJob manifest is a YAML mapping")]
    doc = drop_nulls(doc)
    problems = schema_problems(doc, validator)
    for key, want in (("apiVersion", "kubeflow.org/v2beta1"), ("kind", "MPIJob")):
        if doc.get(key) != want:
            problems.append(([key], f'"{doc.get(key)}" is not {want}: this checks MPIJobs of '
                             "the MPI Operator v2"))
    defaulted = operator_defaults(doc)
    spec = obj(defaulted.get("spec"))
    reported = {render_path(path) for path, _ in problems}
    for path, message in name_problems(defaulted) + spec_problems(spec) + replica_problems(spec):
        if render_path(path) not in reported:  # one line per field: the schema's comes first
            problems.append((path, message))
            reported.add(render_path(path))
    return problems


def check_file(path, validator):
    """Returns the problem lines of one file; raises OSError / yaml.YAMLError."""
    if path == "-":
        docs = list(yaml.safe_load_all(sys.stdin))
    else:
        with open(path, encoding="utf-8") as f:
            docs = list(yaml.safe_load_all(f))
    docs = [d for d in docs if d is not None]
    if not docs:
        return [f"{path}: no YAML document"]
    lines = []
    for n, doc in enumerate(docs):
        where = path if len(docs) == 1 else f"{path} (document {n + 1})"
        lines += [f"{where}: {render_path(p)}: {m}" for p, m in document_problems(doc, validator)]
    return lines


def main(argv):
    args, crd = list(argv), DEFAULT_CRD
    if len(args) >= 2 and args[0] == "--crd":
        crd, args = args[1], args[2:]
    if not args or any(a.startswith("--") for a in args):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    try:
        schema = load_schema(crd)
    except (OSError, KeyError, yaml.YAMLError) as e:
        print(f"validate_mpijob.py: cannot read the CRD {crd}: {e}", file=sys.stderr)
        return 2
    validator = jsonschema.Draft7Validator(schema, format_checker=FORMATS)
    lines, status = [], 0
    for path in args:
        try:
            lines += check_file(path, validator)
        except (OSError, yaml.YAMLError) as e:
            print(f"{path}: cannot read: {e}".replace("\n", " "), file=sys.stderr)
            status = 2
    for line in lines:
        print(line)
    return status or (1 if lines else 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
