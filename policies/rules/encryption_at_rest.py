"""encryption-at-rest: the bucket and the filesystem are encrypted, with a key choice that is declared.

What "encrypted" means per cloud:
- AWS S3: S3 has applied SSE-S3 to every new object by default since January 2023, so a bucket
  without a configuration is encrypted; a declared configuration must name aws:kms,
  aws:kms:dsse or AES256. FSx for Lustre encrypts every file system at rest, so it always passes.
- AWS block and file storage: EBS volumes declared in launch templates (blockDeviceMappings),
  on instances (rootBlockDevice, ebsBlockDevices) and as ebs.Volume (and their aws-native twins:
  ec2.LaunchTemplate and ec2.Instance blockDeviceMappings, ec2.Volume) need encrypted=true unless
  the stack turns on account-level EBS encryption by default (ebs.EncryptionByDefault); EFS file
  systems need encrypted=true, RDS instances and clusters storageEncrypted=true. A volume the
  program does not declare (an AMI's own root volume) follows the AMI and is not judged here.
- GCP: Cloud Storage, Filestore and Managed Lustre / Parallelstore always encrypt at rest with
  Google-managed keys. A customer-managed key, when one is set, must be a full Cloud KMS key name.
- Azure: storage service encryption must not be disabled for blobs, and a Key Vault key source
  needs a key; an AmlFilesystem key-encryption key needs its Key Vault key URL.
- Alibaba Cloud: an OSS bucket needs a server-side encryption rule (AES256, KMS or SM4). CPFS
  is not judged: the SDK offers it no encryption setting (nas.FileSystem `encrypt_type`: 1 only
  for standard/extreme NAS, 2 only for extreme), so a CPFS plan cannot satisfy one (issue 21).
"""
from __future__ import annotations

import re
from typing import Any, Mapping

from trainstack_policies.inventory import (
    ALI_BUCKET,
    ALI_NAS,
    AWS_BUCKETS,
    AWS_SSE,
    AZ_AMLFS,
    AZ_STORAGE_ACCOUNT,
    GCP_BUCKET,
    GCP_FILESTORE,
    GCP_FILESYSTEMS,
)
from trainstack_policies.model import UNKNOWN, Resource, UnknownValue, Violation, number, truthy, violation

NAME = "encryption-at-rest"
DESCRIPTION = ("Buckets, parallel filesystems and declared block/file/database storage (EBS, EFS, "
               "RDS) are encrypted at rest.")
ENFORCEMENT_LEVEL = "mandatory"
KIND = "stack"
SEVERITY = "high"
REMEDIATION = (
    'Declare encryption where the service does not apply it by default: EBS volumes '
    'encrypted=true (or ebs.EncryptionByDefault), EFS encrypted=true, RDS '
    'storage_encrypted=true, an OSS server-side encryption rule, '
    'Azure blob encryption not disabled; a customer-managed key must be a full key name.'
)
SCOPE = (
    'Buckets (S3 passes by default SSE-S3), parallel filesystems, and the block/file/database '
    'storage a program declares (EBS in launch templates, instances and volumes, aws or '
    'aws-native; EFS; RDS '
    'instances and clusters). '
)

_ALI_DISKS = ("alicloud:ecs/ecsDisk:EcsDisk", "alicloud:ecs/disk:Disk",
              "alicloud:ecs/instance:Instance")
AWS_ALGORITHMS = ("aws:kms", "aws:kms:dsse", "AES256")
OSS_ALGORITHMS = ("AES256", "KMS", "SM4")
KMS_KEY = re.compile(r"^projects/[^/]+/locations/[^/]+/keyRings/[^/]+/cryptoKeys/[^/]+$")
# A Key Vault key's URL: https://{vault}.vault.azure.net/keys/{name}/{version}, the version
# optional (Key Vault object identifiers, learn.microsoft.com/azure/key-vault/general/
# about-keys-secrets-certificates); any host, so sovereign clouds' vault suffixes and Managed
# HSM pass. A secret's or certificate's URL, or a bare name, is no key.
KEY_VAULT_KEY = re.compile(r"^https://[^/\s]+/keys/[^/\s]+(/[^/\s]+)?/?$")


def _sse_algorithms(r: Resource, path: str, rules: Any) -> list[Any]:
    return [rule["applyServerSideEncryptionByDefault"].get("sseAlgorithm")
            for rule in r.items(path, rules) if isinstance(rule, dict)
            and isinstance(rule.get("applyServerSideEncryptionByDefault"), dict)]


class _SseIndex:
    """The stack's S3 SSE configuration resources by the bucket they name or depend on, built
    once per check so that each bucket does not scan every resource of the stack."""

    def __init__(self, resources: list[Resource]):
        self.by_dep: dict[int, list[tuple[int, Resource]]] = {}
        self.by_value: dict[Any, list[tuple[int, Resource]]] = {}
        self.unhashable: list[tuple[int, Resource]] = []
        for pos, r in enumerate(resources):
            if r.type not in AWS_SSE:
                continue
            for d in r.deps.get("bucket", []):
                self.by_dep.setdefault(id(d), []).append((pos, r))
            value = r.get("bucket")
            if value:
                try:
                    self.by_value.setdefault(value, []).append((pos, r))
                except TypeError:
                    self.unhashable.append((pos, r))

    def of(self, bucket: Resource) -> list[Resource]:
        """The configurations for `bucket`, in stack order."""
        found = {pos: r for pos, r in self.by_dep.get(id(bucket), [])
                 if any(d is bucket for d in r.deps.get("bucket", []))}
        name = bucket.get("bucket")
        try:
            found.update(self.by_value.get(name, []))
        except TypeError:
            pass
        found.update((pos, r) for pos, r in self.unhashable if r.get("bucket") == name)
        return [found[pos] for pos in sorted(found)]


def _aws_bucket(bucket: Resource, sse: _SseIndex) -> list[Violation]:
    algorithms: list[Any] = []
    inline = bucket.get("serverSideEncryptionConfiguration")
    if isinstance(inline, dict):  # deprecated inline form on s3.Bucket
        algorithms += _sse_algorithms(bucket, "serverSideEncryptionConfiguration.rule",
                                      inline.get("rule"))
    for conf in bucket.items("serverSideEncryptionConfigurations"):  # BucketV2
        if isinstance(conf, dict):
            algorithms += _sse_algorithms(bucket, "serverSideEncryptionConfigurations.rules",
                                          conf.get("rules"))
    for r in sse.of(bucket):
        algorithms += _sse_algorithms(r, "rules", r.get("rules"))
    if UNKNOWN in algorithms:
        raise UnknownValue(bucket, "rules.applyServerSideEncryptionByDefault.sseAlgorithm")
    if not algorithms or any(a in AWS_ALGORITHMS for a in algorithms):
        return []   # none declared: S3's default SSE-S3 (every new object since January 2023)
    return [violation(bucket, "the bucket has no server-side encryption configuration",
                      ", ".join(map(str, algorithms)) or "no BucketServerSideEncryptionConfiguration",
                      f"an SSE configuration with sse_algorithm one of {', '.join(AWS_ALGORITHMS)}",
                      "add an s3.BucketServerSideEncryptionConfiguration(bucket=bucket.id, "
                      "sse_algorithm=\"aws:kms\") for this bucket")]


EBS_BY_DEFAULT = "aws:ebs/encryptionByDefault:EncryptionByDefault"
_EBS_FIX = ("set encrypted=True on the volume (launch template: block_device_mappings[].ebs."
            "encrypted=\"true\"), or enable ebs.EncryptionByDefault in the stack")


def _encrypted(value: Any, r: Resource, path: str) -> bool:
    if value is UNKNOWN:
        raise UnknownValue(r, path)
    return truthy(value)


def _region(r: Resource) -> str:
    region = r.get("region")
    return region if isinstance(region, str) and region else (r.provider_region or "")


def _by_default_regions(resources: list[Resource]) -> set[str]:
    """The regions where the stack turns on EBS encryption by default. The setting is per
    account AND region: one region's does not cover another's volumes. `enabled` unknown at
    preview cannot be read as enabled."""
    out = set()
    for r in resources:
        if r.type == EBS_BY_DEFAULT:
            enabled = r.get("enabled")
            if enabled is UNKNOWN:
                raise UnknownValue(r, "enabled")
            if enabled is not False and truthy(True if enabled is None else enabled):
                out.add(_region(r))
    return out


def _ebs(r: Resource, path: str, ebs: Any) -> tuple[str, Any]:
    """(path, encrypted) of one EBS volume; a volume from a snapshot takes the snapshot's
    encryption (AWS: encrypted snapshots give encrypted volumes), so an `encrypted` left unset
    with a snapshotId set is only judged when the snapshot is known to be unencrypted."""
    if ebs is UNKNOWN:
        raise UnknownValue(r, path)
    if not isinstance(ebs, dict):
        return f"{path}.encrypted", None
    encrypted = ebs.get("encrypted")
    if encrypted in (None, "") and ebs.get("snapshotId"):
        return f"{path}.encrypted", "snapshot"
    return f"{path}.encrypted", encrypted


def _aws_block_storage(r: Resource, by_default: set[str]) -> list[Violation]:
    volumes: list[tuple[str, Any]] = []
    covered = _region(r) in by_default if r.type in _EBS_TYPES else False
    if r.type == "aws:ec2/launchTemplate:LaunchTemplate" and not covered:
        for i, m in enumerate(r.items("blockDeviceMappings")):
            if m is UNKNOWN:
                raise UnknownValue(r, f"blockDeviceMappings.{i}")
            if isinstance(m, dict) and "ebs" in m and m["ebs"] is not None:
                volumes.append(_ebs(r, f"blockDeviceMappings.{i}.ebs", m["ebs"]))
    elif r.type == "aws:ec2/instance:Instance" and not covered:
        root = r.get("rootBlockDevice")
        if root is not None:
            volumes.append(_ebs(r, "rootBlockDevice", root))
        for i, d in enumerate(r.items("ebsBlockDevices")):
            volumes.append(_ebs(r, f"ebsBlockDevices.{i}", d))
    elif r.type in _NATIVE_MAPPINGS and not covered:
        # aws-native (CloudFormation AWS::EC2::LaunchTemplate LaunchTemplateData and
        # AWS::EC2::Instance BlockDeviceMappings [{DeviceName, Ebs {Encrypted, SnapshotId}}]):
        # the same EBS mappings as the classic template's; one without Ebs (an instance-store
        # VirtualName, NoDevice) declares no EBS volume.
        path = _NATIVE_MAPPINGS[r.type]
        for i, m in enumerate(r.items(path)):
            if m is UNKNOWN:
                raise UnknownValue(r, f"{path}.{i}")
            if isinstance(m, dict) and m.get("ebs") is not None:
                volumes.append(_ebs(r, f"{path}.{i}.ebs", m["ebs"]))
    elif r.type in _VOLUMES and not covered:
        # aws-native:ec2:Volume: CloudFormation AWS::EC2::Volume Encrypted / SnapshotId.
        volumes.append(_ebs(r, "volume", {"encrypted": r.get("encrypted"),
                                          "snapshotId": r.get("snapshotId")}))
    elif r.type == "aws:efs/fileSystem:FileSystem":
        volumes.append(("encrypted", r.get("encrypted")))
    elif r.type in ("aws:rds/instance:Instance", "aws:rds/cluster:Cluster"):
        if r.get("replicateSourceDb") or r.get("replicationSourceIdentifier"):
            return []   # a read replica inherits its source's encryption (judged there)
        if r.get("snapshotIdentifier") and r.get("storageEncrypted") is None:
            return []   # restored from a snapshot: takes the snapshot's encryption
        volumes.append(("storageEncrypted", r.get("storageEncrypted")))
    bad = [path for path, value in volumes
           if value != "snapshot" and not _encrypted(value, r, path)]
    if not bad:
        return []
    what = {"aws:efs/fileSystem:FileSystem": "the EFS file system",
            "aws:rds/instance:Instance": "the database", "aws:rds/cluster:Cluster":
            "the database cluster"}.get(r.type, "an EBS volume")
    fix = (_EBS_FIX if what == "an EBS volume" else "set encrypted=True (only at creation)"
           if "EFS" in what else "set storage_encrypted=True (only at creation)")
    if what == "an EBS volume" and by_default:
        fix += (f" (EBS encryption by default is on in {', '.join(sorted(by_default))} only; "
                "it is set per region)")
    return [violation(r, f"{what} is not encrypted at rest", ", ".join(f"{p} unset or false"
                                                                      for p in bad),
                      "encrypted true", fix)]


_VOLUMES = ("aws:ebs/volume:Volume", "aws-native:ec2:Volume")
_NATIVE_MAPPINGS = {"aws-native:ec2:LaunchTemplate": "launchTemplateData.blockDeviceMappings",
                    "aws-native:ec2:Instance": "blockDeviceMappings"}
# The EBS an account's encryption by default covers (aws and aws-native).
_EBS_TYPES = ("aws:ec2/launchTemplate:LaunchTemplate", "aws:ec2/instance:Instance",
              *_VOLUMES, *_NATIVE_MAPPINGS)


def _alicloud_disk(r: Resource) -> list[Violation]:
    """ECS data/system disks: `encrypted` false (the default) leaves the disk unencrypted,
    unless the disk is created from a snapshot (which carries its own encryption)."""
    paths: list[tuple[str, Any]] = []
    if r.type == "alicloud:ecs/ecsDisk:EcsDisk" or r.type == "alicloud:ecs/disk:Disk":
        if not r.get("snapshotId"):
            paths.append(("encrypted", r.get("encrypted")))
    else:
        for i, d in enumerate(r.items("dataDisks")):
            if d is UNKNOWN:
                raise UnknownValue(r, f"dataDisks.{i}")
            if isinstance(d, dict) and not d.get("snapshotId"):
                paths.append((f"dataDisks.{i}.encrypted", d.get("encrypted")))
        if r.has("systemDiskEncrypted"):
            paths.append(("systemDiskEncrypted", r.get("systemDiskEncrypted")))
    bad = [p for p, v in paths if not _encrypted(v, r, p)]
    if not bad:
        return []
    return [violation(r, "an ECS disk is not encrypted at rest",
                      ", ".join(f"{p} unset or false" for p in bad), "encrypted true",
                      "set encrypted=True (with a kms_key_id for your own key) on the disk")]


def _gcp_key(r: Resource, path: str) -> list[Violation]:
    key = r.get(path)
    if key is UNKNOWN or key is None:
        return []  # unknown: a key created in this stack; none: Google-managed encryption
    if isinstance(key, str) and KMS_KEY.match(key):
        return []
    return [violation(r, "the customer-managed encryption key is not a Cloud KMS key name",
                      key, "projects/P/locations/L/keyRings/R/cryptoKeys/K",
                      f"set {path} to the key's full resource name (or drop it for "
                      "Google-managed encryption)")]


def _azure_account(r: Resource) -> list[Violation]:
    enabled = r.get("encryption.services.blob.enabled")
    if enabled is UNKNOWN:
        raise UnknownValue(r, "encryption.services.blob.enabled")
    if enabled is False:
        return [violation(r, "blob encryption is disabled", "encryption.services.blob.enabled "
                          "false", "true (or unset: Azure encrypts by default)",
                          "remove enabled=False from the storage account's encryption services")]
    if str(r.get("encryption.keySource") or "").lower() == "microsoft.keyvault" and \
            not r.get("encryption.keyVaultProperties.keyName"):
        return [violation(r, "the Key Vault key source names no key",
                          "keySource Microsoft.Keyvault without keyVaultProperties.keyName",
                          "keyVaultProperties with keyName and keyVaultUri",
                          "set encryption.key_vault_properties, or use key_source "
                          "\"Microsoft.Storage\"")]
    return []


def _azure_amlfs(r: Resource) -> list[Violation]:
    kek = r.get("encryptionSettings.keyEncryptionKey")
    if isinstance(kek, dict) and not kek.get("keyUrl"):
        return [violation(r, "the key-encryption key has no key URL", "keyEncryptionKey without "
                          "keyUrl", "a Key Vault key URL",
                          "set encryption_settings.key_encryption_key.key_url, or drop "
                          "encryption_settings for Microsoft-managed keys")]
    url = kek.get("keyUrl") if isinstance(kek, dict) else None
    if url is UNKNOWN or url is None or (isinstance(url, str) and KEY_VAULT_KEY.match(url)):
        return []   # unknown: a key created in this stack
    return [violation(r, "the key-encryption key is not a Key Vault key URL", url,
                      "https://<vault>.vault.azure.net/keys/<name>/<version>",
                      "set encryption_settings.key_encryption_key.key_url to the key's URL "
                      "(its kid)")]


def _alicloud_bucket(r: Resource) -> list[Violation]:
    algorithm = r.get("serverSideEncryptionRule.sseAlgorithm")
    if algorithm is UNKNOWN:
        raise UnknownValue(r, "serverSideEncryptionRule.sseAlgorithm")
    if algorithm in OSS_ALGORITHMS:
        return []
    return [violation(r, "the OSS bucket has no server-side encryption rule", algorithm,
                      f"server_side_encryption_rule sse_algorithm one of "
                      f"{', '.join(OSS_ALGORITHMS)}",
                      "set server_side_encryption_rule=BucketServerSideEncryptionRuleArgs("
                      "sse_algorithm=\"KMS\") on the oss.Bucket")]


def _alicloud_nas(r: Resource) -> list[Violation]:
    """Standard and extreme NAS: encrypt_type 0 (the default) is unencrypted. CPFS (cpfs,
    cpfsse) is not judged: it takes no encrypt_type (pulumi-alicloud nas.FileSystem: 1 only for
    standard/extreme NAS, 2 only for extreme), so asking for one would block every Alibaba plan."""
    kind = r.get("fileSystemType")
    if kind is UNKNOWN:
        raise UnknownValue(r, "fileSystemType")
    if str(kind).lower() in ("cpfs", "cpfsse"):
        return []
    value = r.get("encryptType")
    if value is UNKNOWN:
        raise UnknownValue(r, "encryptType")
    if number(value) in (1.0, 2.0):
        return []
    return [violation(r, f"the NAS file system ({kind or 'standard'}) is not encrypted",
                      f"encryptType {value if value is not None else 'unset (0)'}",
                      "encryptType 1 (NAS-managed key) or 2 (KMS)",
                      "set encrypt_type=1 or 2 on the nas.FileSystem (only at creation)")]


# The types check() judges besides every AWS resource (each a branch of its chain).
_JUDGED = frozenset({*AWS_BUCKETS, GCP_BUCKET, *GCP_FILESYSTEMS, GCP_FILESTORE,
                     AZ_STORAGE_ACCOUNT, AZ_AMLFS, ALI_BUCKET, ALI_NAS, *_ALI_DISKS})


def check(resources: list[Resource], config: Mapping[str, Any]) -> list[Violation]:
    out: list[Violation] = []
    by_default = _by_default_regions(resources)
    sse = _SseIndex(resources)
    for r in resources:
        if r.type not in _JUDGED and r.cloud != "aws":
            continue   # no branch below reads it: one look-up instead of the whole chain
        if r.type in AWS_BUCKETS:
            out += _aws_bucket(r, sse)
        elif r.cloud == "aws":
            out += _aws_block_storage(r, by_default)
        elif r.type == GCP_BUCKET:
            out += _gcp_key(r, "encryption.defaultKmsKeyName")
        elif r.type in GCP_FILESYSTEMS:
            out += _gcp_key(r, "kmsKey")
        elif r.type == GCP_FILESTORE:
            out += _gcp_key(r, "kmsKeyName")
        elif r.type == AZ_STORAGE_ACCOUNT:
            out += _azure_account(r)
        elif r.type == AZ_AMLFS:
            out += _azure_amlfs(r)
        elif r.type == ALI_BUCKET:
            out += _alicloud_bucket(r)
        elif r.type == ALI_NAS:
            out += _alicloud_nas(r)
        elif r.type in _ALI_DISKS:
            out += _alicloud_disk(r)
    return out
