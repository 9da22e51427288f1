"""How the controllers print a pod template before hashing it: the Go struct of every type a
`core/v1.PodTemplateSpec` holds, as `reflect` reports it for k8s.io/api at 10b39a39b and
k8s.io/apimachinery at eed236ce (Kubernetes 1.37, the sources of gotypes_table.py too), so that
spew.py can print a template as go-spew does. A field added to one of these structs in another
version changes every hash: the table belongs to the version kubesim presents.

`STRUCTS` maps a Go type, named as Go prints it (`v1.PodSpec`, `resource.Quantity`), to its fields in
declaration order: `(Go field name, Go type)` when the JSON name is the Go name with its first
letter in lower case, else `(Go field name, Go type, JSON name)`, the JSON name empty for an embedded
struct whose fields are inlined (and for the unexported fields of `resource.Quantity`, `v1.Time`,
`intstr.IntOrString` and the types under them, which spew.py fills from the JSON value). `NAMED`
maps every other named type to the type it is declared as. Pointer, slice and map types are
spelled as Go spells them (`*int64`, `[]v1.Container`, `map[string]string`). Read by spew.py;
tests/unit/kubesim/machinery/test_spew.py checks these against gotypes_table.py.
"""

STRUCTS = {
    'big.Int': (
        ('neg', 'bool', ''), ('abs', 'big.nat', ''),
    ),
    'inf.Dec': (
        ('unscaled', 'big.Int', ''), ('scale', 'inf.Scale', ''),
    ),
    'intstr.IntOrString': (
        ('Type', 'intstr.Type', ''), ('IntVal', 'int32', ''), ('StrVal', 'string', ''),
    ),
    'resource.Quantity': (
        ('i', 'resource.int64Amount', ''), ('d', 'resource.infDecAmount', ''), ('s', 'string', ''),
        ('Format', 'resource.Format', ''),
    ),
    'resource.infDecAmount': (
        ('Dec', '*inf.Dec', ''),
    ),
    'resource.int64Amount': (
        ('value', 'int64', ''), ('scale', 'resource.Scale', ''),
    ),
    'time.Time': (
        ('wall', 'uint64', ''), ('ext', 'int64', ''), ('loc', '*time.Location', ''),
    ),
    'v1.AWSElasticBlockStoreVolumeSource': (
        ('VolumeID', 'string'), ('FSType', 'string', 'fsType'), ('Partition', 'int32'), ('ReadOnly', 'bool'),
    ),
    'v1.Affinity': (
        ('NodeAffinity', '*v1.NodeAffinity'), ('PodAffinity', '*v1.PodAffinity'),
        ('PodAntiAffinity', '*v1.PodAntiAffinity'),
    ),
    'v1.AppArmorProfile': (
        ('Type', 'v1.AppArmorProfileType'), ('LocalhostProfile', '*string'),
    ),
    'v1.AzureDiskVolumeSource': (
        ('DiskName', 'string'), ('DataDiskURI', 'string', 'diskURI'),
        ('CachingMode', '*v1.AzureDataDiskCachingMode'), ('FSType', '*string', 'fsType'),
        ('ReadOnly', '*bool'), ('Kind', '*v1.AzureDataDiskKind'),
    ),
    'v1.AzureFileVolumeSource': (
        ('SecretName', 'string'), ('ShareName', 'string'), ('ReadOnly', 'bool'),
    ),
    'v1.CSIVolumeSource': (
        ('Driver', 'string'), ('ReadOnly', '*bool'), ('FSType', '*string', 'fsType'),
        ('VolumeAttributes', 'map[string]string'), ('NodePublishSecretRef', '*v1.LocalObjectReference'),
    ),
    'v1.Capabilities': (
        ('Add', '[]v1.Capability'), ('Drop', '[]v1.Capability'),
    ),
    'v1.CephFSVolumeSource': (
        ('Monitors', '[]string'), ('Path', 'string'), ('User', 'string'), ('SecretFile', 'string'),
        ('SecretRef', '*v1.LocalObjectReference'), ('ReadOnly', 'bool'),
    ),
    'v1.CinderVolumeSource': (
        ('VolumeID', 'string'), ('FSType', 'string', 'fsType'), ('ReadOnly', 'bool'),
        ('SecretRef', '*v1.LocalObjectReference'),
    ),
    'v1.ClusterTrustBundleProjection': (
        ('Name', '*string'), ('SignerName', '*string'), ('LabelSelector', '*v1.LabelSelector'),
        ('Optional', '*bool'), ('Path', 'string'), ('User', '*int64'),
    ),
    'v1.ConfigMapEnvSource': (
        ('LocalObjectReference', 'v1.LocalObjectReference', ''), ('Optional', '*bool'),
    ),
    'v1.ConfigMapKeySelector': (
        ('LocalObjectReference', 'v1.LocalObjectReference', ''), ('Key', 'string'), ('Optional', '*bool'),
    ),
    'v1.ConfigMapProjection': (
        ('LocalObjectReference', 'v1.LocalObjectReference', ''), ('Items', '[]v1.KeyToPath'),
        ('Optional', '*bool'),
    ),
    'v1.ConfigMapVolumeSource': (
        ('LocalObjectReference', 'v1.LocalObjectReference', ''), ('Items', '[]v1.KeyToPath'),
        ('DefaultMode', '*int32'), ('Optional', '*bool'), ('DefaultUser', '*int64'),
    ),
    'v1.Container': (
        ('Name', 'string'), ('Image', 'string'), ('Command', '[]string'), ('Args', '[]string'),
        ('WorkingDir', 'string'), ('Ports', '[]v1.ContainerPort'), ('EnvFrom', '[]v1.EnvFromSource'),
        ('Env', '[]v1.EnvVar'), ('Resources', 'v1.ResourceRequirements'),
        ('ResizePolicy', '[]v1.ContainerResizePolicy'), ('RestartPolicy', '*v1.ContainerRestartPolicy'),
        ('RestartPolicyRules', '[]v1.ContainerRestartRule'), ('VolumeMounts', '[]v1.VolumeMount'),
        ('VolumeDevices', '[]v1.VolumeDevice'), ('LivenessProbe', '*v1.Probe'),
        ('ReadinessProbe', '*v1.Probe'), ('StartupProbe', '*v1.Probe'), ('Lifecycle', '*v1.Lifecycle'),
        ('TerminationMessagePath', 'string'), ('TerminationMessagePolicy', 'v1.TerminationMessagePolicy'),
        ('ImagePullPolicy', 'v1.PullPolicy'), ('SecurityContext', '*v1.SecurityContext'), ('Stdin', 'bool'),
        ('StdinOnce', 'bool'), ('TTY', 'bool', 'tty'),
    ),
    'v1.ContainerPort': (
        ('Name', 'string'), ('HostPort', 'int32'), ('ContainerPort', 'int32'), ('Protocol', 'v1.Protocol'),
        ('HostIP', 'string'),
    ),
    'v1.ContainerResizePolicy': (
        ('ResourceName', 'v1.ResourceName'), ('RestartPolicy', 'v1.ResourceResizeRestartPolicy'),
    ),
    'v1.ContainerRestartRule': (
        ('Action', 'v1.ContainerRestartRuleAction'), ('ExitCodes', '*v1.ContainerRestartRuleOnExitCodes'),
    ),
    'v1.ContainerRestartRuleOnExitCodes': (
        ('Operator', 'v1.ContainerRestartRuleOnExitCodesOperator'), ('Values', '[]int32'),
    ),
    'v1.DownwardAPIProjection': (
        ('Items', '[]v1.DownwardAPIVolumeFile'),
    ),
    'v1.DownwardAPIVolumeFile': (
        ('Path', 'string'), ('FieldRef', '*v1.ObjectFieldSelector'),
        ('ResourceFieldRef', '*v1.ResourceFieldSelector'), ('Mode', '*int32'), ('User', '*int64'),
    ),
    'v1.DownwardAPIVolumeSource': (
        ('Items', '[]v1.DownwardAPIVolumeFile'), ('DefaultMode', '*int32'), ('DefaultUser', '*int64'),
    ),
    'v1.EmptyDirVolumeSource': (
        ('Medium', 'v1.StorageMedium'), ('SizeLimit', '*resource.Quantity'), ('Mode', '*int32'),
    ),
    'v1.EnvFromSource': (
        ('Prefix', 'string'), ('ConfigMapRef', '*v1.ConfigMapEnvSource'),
        ('SecretRef', '*v1.SecretEnvSource'),
    ),
    'v1.EnvVar': (
        ('Name', 'string'), ('Value', 'string'), ('ValueFrom', '*v1.EnvVarSource'),
    ),
    'v1.EnvVarSource': (
        ('FieldRef', '*v1.ObjectFieldSelector'), ('ResourceFieldRef', '*v1.ResourceFieldSelector'),
        ('ConfigMapKeyRef', '*v1.ConfigMapKeySelector'), ('SecretKeyRef', '*v1.SecretKeySelector'),
        ('FileKeyRef', '*v1.FileKeySelector'),
    ),
    'v1.EphemeralContainer': (
        ('EphemeralContainerCommon', 'v1.EphemeralContainerCommon', ''), ('TargetContainerName', 'string'),
    ),
    'v1.EphemeralContainerCommon': (
        ('Name', 'string'), ('Image', 'string'), ('Command', '[]string'), ('Args', '[]string'),
        ('WorkingDir', 'string'), ('Ports', '[]v1.ContainerPort'), ('EnvFrom', '[]v1.EnvFromSource'),
        ('Env', '[]v1.EnvVar'), ('Resources', 'v1.ResourceRequirements'),
        ('ResizePolicy', '[]v1.ContainerResizePolicy'), ('RestartPolicy', '*v1.ContainerRestartPolicy'),
        ('RestartPolicyRules', '[]v1.ContainerRestartRule'), ('VolumeMounts', '[]v1.VolumeMount'),
        ('VolumeDevices', '[]v1.VolumeDevice'), ('LivenessProbe', '*v1.Probe'),
        ('ReadinessProbe', '*v1.Probe'), ('StartupProbe', '*v1.Probe'), ('Lifecycle', '*v1.Lifecycle'),
        ('TerminationMessagePath', 'string'), ('TerminationMessagePolicy', 'v1.TerminationMessagePolicy'),
        ('ImagePullPolicy', 'v1.PullPolicy'), ('SecurityContext', '*v1.SecurityContext'), ('Stdin', 'bool'),
        ('StdinOnce', 'bool'), ('TTY', 'bool', 'tty'),
    ),
    'v1.EphemeralVolumeSource': (
        ('VolumeClaimTemplate', '*v1.PersistentVolumeClaimTemplate'),
    ),
    'v1.EvictionResponder': (
        ('Name', 'string'), ('Priority', '*int32'),
    ),
    'v1.ExecAction': (
        ('Command', '[]string'),
    ),
    'v1.FCVolumeSource': (
        ('TargetWWNs', '[]string'), ('Lun', '*int32'), ('FSType', 'string', 'fsType'), ('ReadOnly', 'bool'),
        ('WWIDs', '[]string', 'wwids'),
    ),
    'v1.FieldsV1': (
        ('Raw', '[]uint8', '-'),
    ),
    'v1.FileKeySelector': (
        ('VolumeName', 'string'), ('Path', 'string'), ('Key', 'string'), ('Optional', '*bool'),
    ),
    'v1.FlexVolumeSource': (
        ('Driver', 'string'), ('FSType', 'string', 'fsType'), ('SecretRef', '*v1.LocalObjectReference'),
        ('ReadOnly', 'bool'), ('Options', 'map[string]string'),
    ),
    'v1.FlockerVolumeSource': (
        ('DatasetName', 'string'), ('DatasetUUID', 'string'),
    ),
    'v1.GCEPersistentDiskVolumeSource': (
        ('PDName', 'string', 'pdName'), ('FSType', 'string', 'fsType'), ('Partition', 'int32'),
        ('ReadOnly', 'bool'),
    ),
    'v1.GRPCAction': (
        ('Port', 'int32'), ('Service', '*string'), ('Mode', '*v1.GRPCProbeMode'),
    ),
    'v1.GitRepoVolumeSource': (
        ('Repository', 'string'), ('Revision', 'string'), ('Directory', 'string'),
    ),
    'v1.GlusterfsVolumeSource': (
        ('EndpointsName', 'string', 'endpoints'), ('Path', 'string'), ('ReadOnly', 'bool'),
    ),
    'v1.HTTPGetAction': (
        ('Path', 'string'), ('Port', 'intstr.IntOrString'), ('Host', 'string'), ('Scheme', 'v1.URIScheme'),
        ('HTTPHeaders', '[]v1.HTTPHeader', 'httpHeaders'), ('Protocol', '*v1.HTTPProtocol'),
    ),
    'v1.HTTPHeader': (
        ('Name', 'string'), ('Value', 'string'),
    ),
    'v1.HostAlias': (
        ('IP', 'string', 'ip'), ('Hostnames', '[]string'),
    ),
    'v1.HostPathVolumeSource': (
        ('Path', 'string'), ('Type', '*v1.HostPathType'),
    ),
    'v1.ISCSIVolumeSource': (
        ('TargetPortal', 'string'), ('IQN', 'string', 'iqn'), ('Lun', 'int32'),
        ('ISCSIInterface', 'string', 'iscsiInterface'), ('FSType', 'string', 'fsType'), ('ReadOnly', 'bool'),
        ('Portals', '[]string'), ('DiscoveryCHAPAuth', 'bool', 'chapAuthDiscovery'),
        ('SessionCHAPAuth', 'bool', 'chapAuthSession'), ('SecretRef', '*v1.LocalObjectReference'),
        ('InitiatorName', '*string'),
    ),
    'v1.ImageVolumeSource': (
        ('Reference', 'string'), ('PullPolicy', 'v1.PullPolicy'),
    ),
    'v1.KeyToPath': (
        ('Key', 'string'), ('Path', 'string'), ('Mode', '*int32'), ('User', '*int64'),
    ),
    'v1.LabelSelector': (
        ('MatchLabels', 'map[string]string'), ('MatchExpressions', '[]v1.LabelSelectorRequirement'),
    ),
    'v1.LabelSelectorRequirement': (
        ('Key', 'string'), ('Operator', 'v1.LabelSelectorOperator'), ('Values', '[]string'),
    ),
    'v1.Lifecycle': (
        ('PostStart', '*v1.LifecycleHandler'), ('PreStop', '*v1.LifecycleHandler'),
        ('StopSignal', '*v1.Signal'),
    ),
    'v1.LifecycleHandler': (
        ('Exec', '*v1.ExecAction'), ('HTTPGet', '*v1.HTTPGetAction', 'httpGet'),
        ('TCPSocket', '*v1.TCPSocketAction', 'tcpSocket'), ('Sleep', '*v1.SleepAction'),
    ),
    'v1.LocalObjectReference': (
        ('Name', 'string'),
    ),
    'v1.ManagedFieldsEntry': (
        ('Manager', 'string'), ('Operation', 'v1.ManagedFieldsOperationType'),
        ('APIVersion', 'string', 'apiVersion'), ('Time', '*v1.Time'), ('FieldsType', 'string'),
        ('FieldsV1', '*v1.FieldsV1'), ('Subresource', 'string'),
    ),
    'v1.NFSVolumeSource': (
        ('Server', 'string'), ('Path', 'string'), ('ReadOnly', 'bool'),
    ),
    'v1.NodeAffinity': (
        ('RequiredDuringSchedulingIgnoredDuringExecution', '*v1.NodeSelector'),
        ('PreferredDuringSchedulingIgnoredDuringExecution', '[]v1.PreferredSchedulingTerm'),
    ),
    'v1.NodeSelector': (
        ('NodeSelectorTerms', '[]v1.NodeSelectorTerm'),
    ),
    'v1.NodeSelectorRequirement': (
        ('Key', 'string'), ('Operator', 'v1.NodeSelectorOperator'), ('Values', '[]string'),
    ),
    'v1.NodeSelectorTerm': (
        ('MatchExpressions', '[]v1.NodeSelectorRequirement'), ('MatchFields', '[]v1.NodeSelectorRequirement'),
    ),
    'v1.ObjectFieldSelector': (
        ('APIVersion', 'string', 'apiVersion'), ('FieldPath', 'string'),
    ),
    'v1.ObjectMeta': (
        ('Name', 'string'), ('GenerateName', 'string'), ('Namespace', 'string'), ('SelfLink', 'string'),
        ('UID', 'types.UID', 'uid'), ('ResourceVersion', 'string'), ('Generation', 'int64'),
        ('CreationTimestamp', 'v1.Time'), ('DeletionTimestamp', '*v1.Time'),
        ('DeletionGracePeriodSeconds', '*int64'), ('Labels', 'map[string]string'),
        ('Annotations', 'map[string]string'), ('OwnerReferences', '[]v1.OwnerReference'),
        ('Finalizers', '[]string'), ('ManagedFields', '[]v1.ManagedFieldsEntry'),
    ),
    'v1.OwnerReference': (
        ('APIVersion', 'string', 'apiVersion'), ('Kind', 'string'), ('Name', 'string'),
        ('UID', 'types.UID', 'uid'), ('Controller', '*bool'), ('BlockOwnerDeletion', '*bool'),
    ),
    'v1.PersistentVolumeClaimSpec': (
        ('AccessModes', '[]v1.PersistentVolumeAccessMode'), ('Selector', '*v1.LabelSelector'),
        ('Resources', 'v1.VolumeResourceRequirements'), ('VolumeName', 'string'),
        ('StorageClassName', '*string'), ('VolumeMode', '*v1.PersistentVolumeMode'),
        ('DataSource', '*v1.TypedLocalObjectReference'), ('DataSourceRef', '*v1.TypedObjectReference'),
        ('VolumeAttributesClassName', '*string'),
    ),
    'v1.PersistentVolumeClaimTemplate': (
        ('ObjectMeta', 'v1.ObjectMeta', 'metadata'), ('Spec', 'v1.PersistentVolumeClaimSpec'),
    ),
    'v1.PersistentVolumeClaimVolumeSource': (
        ('ClaimName', 'string'), ('ReadOnly', 'bool'),
    ),
    'v1.PhotonPersistentDiskVolumeSource': (
        ('PdID', 'string'), ('FSType', 'string', 'fsType'),
    ),
    'v1.PodAffinity': (
        ('RequiredDuringSchedulingIgnoredDuringExecution', '[]v1.PodAffinityTerm'),
        ('PreferredDuringSchedulingIgnoredDuringExecution', '[]v1.WeightedPodAffinityTerm'),
    ),
    'v1.PodAffinityTerm': (
        ('LabelSelector', '*v1.LabelSelector'), ('Namespaces', '[]string'), ('TopologyKey', 'string'),
        ('NamespaceSelector', '*v1.LabelSelector'), ('MatchLabelKeys', '[]string'),
        ('MismatchLabelKeys', '[]string'),
    ),
    'v1.PodAntiAffinity': (
        ('RequiredDuringSchedulingIgnoredDuringExecution', '[]v1.PodAffinityTerm'),
        ('PreferredDuringSchedulingIgnoredDuringExecution', '[]v1.WeightedPodAffinityTerm'),
    ),
    'v1.PodCertificateProjection': (
        ('SignerName', 'string'), ('KeyType', 'string'), ('MaxExpirationSeconds', '*int32'),
        ('CredentialBundlePath', 'string'), ('KeyPath', 'string'), ('CertificateChainPath', 'string'),
        ('UserAnnotations', 'map[string]string'), ('User', '*int64'),
    ),
    'v1.PodDNSConfig': (
        ('Nameservers', '[]string'), ('Searches', '[]string'), ('Options', '[]v1.PodDNSConfigOption'),
    ),
    'v1.PodDNSConfigOption': (
        ('Name', 'string'), ('Value', '*string'),
    ),
    'v1.PodOS': (
        ('Name', 'v1.OSName'),
    ),
    'v1.PodReadinessGate': (
        ('ConditionType', 'v1.PodConditionType'),
    ),
    'v1.PodResourceClaim': (
        ('Name', 'string'), ('ResourceClaimName', '*string'), ('ResourceClaimTemplateName', '*string'),
    ),
    'v1.PodSchedulingGate': (
        ('Name', 'string'),
    ),
    'v1.PodSchedulingGroup': (
        ('PodGroupName', '*string'),
    ),
    'v1.PodSecurityContext': (
        ('SELinuxOptions', '*v1.SELinuxOptions', 'seLinuxOptions'),
        ('WindowsOptions', '*v1.WindowsSecurityContextOptions'), ('RunAsUser', '*int64'),
        ('RunAsGroup', '*int64'), ('RunAsNonRoot', '*bool'), ('SupplementalGroups', '[]int64'),
        ('SupplementalGroupsPolicy', '*v1.SupplementalGroupsPolicy'), ('FSGroup', '*int64', 'fsGroup'),
        ('Sysctls', '[]v1.Sysctl'),
        ('FSGroupChangePolicy', '*v1.PodFSGroupChangePolicy', 'fsGroupChangePolicy'),
        ('SeccompProfile', '*v1.SeccompProfile'), ('AppArmorProfile', '*v1.AppArmorProfile'),
        ('SELinuxChangePolicy', '*v1.PodSELinuxChangePolicy', 'seLinuxChangePolicy'),
    ),
    'v1.PodSpec': (
        ('Volumes', '[]v1.Volume'), ('InitContainers', '[]v1.Container'), ('Containers', '[]v1.Container'),
        ('EphemeralContainers', '[]v1.EphemeralContainer'), ('RestartPolicy', 'v1.RestartPolicy'),
        ('TerminationGracePeriodSeconds', '*int64'), ('ActiveDeadlineSeconds', '*int64'),
        ('DNSPolicy', 'v1.DNSPolicy', 'dnsPolicy'), ('NodeSelector', 'map[string]string'),
        ('ServiceAccountName', 'string'), ('DeprecatedServiceAccount', 'string', 'serviceAccount'),
        ('AutomountServiceAccountToken', '*bool'), ('NodeName', 'string'), ('HostNetwork', 'bool'),
        ('HostPID', 'bool'), ('HostIPC', 'bool'), ('ShareProcessNamespace', '*bool'),
        ('SecurityContext', '*v1.PodSecurityContext'), ('ImagePullSecrets', '[]v1.LocalObjectReference'),
        ('Hostname', 'string'), ('Subdomain', 'string'), ('Affinity', '*v1.Affinity'),
        ('SchedulerName', 'string'), ('Tolerations', '[]v1.Toleration'), ('HostAliases', '[]v1.HostAlias'),
        ('PriorityClassName', 'string'), ('Priority', '*int32'),
        ('DNSConfig', '*v1.PodDNSConfig', 'dnsConfig'), ('ReadinessGates', '[]v1.PodReadinessGate'),
        ('RuntimeClassName', '*string'), ('EnableServiceLinks', '*bool'),
        ('PreemptionPolicy', '*v1.PreemptionPolicy'), ('Overhead', 'v1.ResourceList'),
        ('TopologySpreadConstraints', '[]v1.TopologySpreadConstraint'), ('SetHostnameAsFQDN', '*bool'),
        ('OS', '*v1.PodOS', 'os'), ('HostUsers', '*bool'), ('SchedulingGates', '[]v1.PodSchedulingGate'),
        ('ResourceClaims', '[]v1.PodResourceClaim'), ('Resources', '*v1.ResourceRequirements'),
        ('HostnameOverride', '*string'), ('SchedulingGroup', '*v1.PodSchedulingGroup'),
        ('EvictionResponders', '[]v1.EvictionResponder'),
    ),
    'v1.PodTemplateSpec': (
        ('ObjectMeta', 'v1.ObjectMeta', 'metadata'), ('Spec', 'v1.PodSpec'),
    ),
    'v1.PortworxVolumeSource': (
        ('VolumeID', 'string'), ('FSType', 'string', 'fsType'), ('ReadOnly', 'bool'),
    ),
    'v1.PreferredSchedulingTerm': (
        ('Weight', 'int32'), ('Preference', 'v1.NodeSelectorTerm'),
    ),
    'v1.Probe': (
        ('ProbeHandler', 'v1.ProbeHandler', ''), ('InitialDelaySeconds', 'int32'),
        ('TimeoutSeconds', 'int32'), ('PeriodSeconds', 'int32'), ('SuccessThreshold', 'int32'),
        ('FailureThreshold', 'int32'), ('TerminationGracePeriodSeconds', '*int64'),
    ),
    'v1.ProbeHandler': (
        ('Exec', '*v1.ExecAction'), ('HTTPGet', '*v1.HTTPGetAction', 'httpGet'),
        ('TCPSocket', '*v1.TCPSocketAction', 'tcpSocket'), ('GRPC', '*v1.GRPCAction', 'grpc'),
    ),
    'v1.ProjectedVolumeSource': (
        ('Sources', '[]v1.VolumeProjection'), ('DefaultMode', '*int32'), ('DefaultUser', '*int64'),
    ),
    'v1.QuobyteVolumeSource': (
        ('Registry', 'string'), ('Volume', 'string'), ('ReadOnly', 'bool'), ('User', 'string'),
        ('Group', 'string'), ('Tenant', 'string'),
    ),
    'v1.RBDVolumeSource': (
        ('CephMonitors', '[]string', 'monitors'), ('RBDImage', 'string', 'image'),
        ('FSType', 'string', 'fsType'), ('RBDPool', 'string', 'pool'), ('RadosUser', 'string', 'user'),
        ('Keyring', 'string'), ('SecretRef', '*v1.LocalObjectReference'), ('ReadOnly', 'bool'),
    ),
    'v1.ResourceClaim': (
        ('Name', 'string'), ('Request', 'string'),
    ),
    'v1.ResourceFieldSelector': (
        ('ContainerName', 'string'), ('Resource', 'string'), ('Divisor', 'resource.Quantity'),
    ),
    'v1.ResourceRequirements': (
        ('Limits', 'v1.ResourceList'), ('Requests', 'v1.ResourceList'), ('Claims', '[]v1.ResourceClaim'),
    ),
    'v1.SELinuxOptions': (
        ('User', 'string'), ('Role', 'string'), ('Type', 'string'), ('Level', 'string'),
    ),
    'v1.ScaleIOVolumeSource': (
        ('Gateway', 'string'), ('System', 'string'), ('SecretRef', '*v1.LocalObjectReference'),
        ('SSLEnabled', 'bool', 'sslEnabled'), ('ProtectionDomain', 'string'), ('StoragePool', 'string'),
        ('StorageMode', 'string'), ('VolumeName', 'string'), ('FSType', 'string', 'fsType'),
        ('ReadOnly', 'bool'),
    ),
    'v1.SeccompProfile': (
        ('Type', 'v1.SeccompProfileType'), ('LocalhostProfile', '*string'),
    ),
    'v1.SecretEnvSource': (
        ('LocalObjectReference', 'v1.LocalObjectReference', ''), ('Optional', '*bool'),
    ),
    'v1.SecretKeySelector': (
        ('LocalObjectReference', 'v1.LocalObjectReference', ''), ('Key', 'string'), ('Optional', '*bool'),
    ),
    'v1.SecretProjection': (
        ('LocalObjectReference', 'v1.LocalObjectReference', ''), ('Items', '[]v1.KeyToPath'),
        ('Optional', '*bool'),
    ),
    'v1.SecretVolumeSource': (
        ('SecretName', 'string'), ('Items', '[]v1.KeyToPath'), ('DefaultMode', '*int32'),
        ('Optional', '*bool'), ('DefaultUser', '*int64'),
    ),
    'v1.SecurityContext': (
        ('Capabilities', '*v1.Capabilities'), ('Privileged', '*bool'),
        ('SELinuxOptions', '*v1.SELinuxOptions', 'seLinuxOptions'),
        ('WindowsOptions', '*v1.WindowsSecurityContextOptions'), ('RunAsUser', '*int64'),
        ('RunAsGroup', '*int64'), ('RunAsNonRoot', '*bool'), ('ReadOnlyRootFilesystem', '*bool'),
        ('AllowPrivilegeEscalation', '*bool'), ('ProcMount', '*v1.ProcMountType'),
        ('SeccompProfile', '*v1.SeccompProfile'), ('AppArmorProfile', '*v1.AppArmorProfile'),
    ),
    'v1.ServiceAccountTokenProjection': (
        ('Audience', 'string'), ('ExpirationSeconds', '*int64'), ('Path', 'string'), ('User', '*int64'),
    ),
    'v1.SleepAction': (
        ('Seconds', 'int64'),
    ),
    'v1.StorageOSVolumeSource': (
        ('VolumeName', 'string'), ('VolumeNamespace', 'string'), ('FSType', 'string', 'fsType'),
        ('ReadOnly', 'bool'), ('SecretRef', '*v1.LocalObjectReference'),
    ),
    'v1.Sysctl': (
        ('Name', 'string'), ('Value', 'string'),
    ),
    'v1.TCPSocketAction': (
        ('Port', 'intstr.IntOrString'), ('Host', 'string'),
    ),
    'v1.Time': (
        ('Time', 'time.Time', ''),
    ),
    'v1.Toleration': (
        ('Key', 'string'), ('Operator', 'v1.TolerationOperator'), ('Value', 'string'),
        ('Effect', 'v1.TaintEffect'), ('TolerationSeconds', '*int64'),
    ),
    'v1.TopologySpreadConstraint': (
        ('MaxSkew', 'int32'), ('TopologyKey', 'string'),
        ('WhenUnsatisfiable', 'v1.UnsatisfiableConstraintAction'), ('LabelSelector', '*v1.LabelSelector'),
        ('MinDomains', '*int32'), ('NodeAffinityPolicy', '*v1.NodeInclusionPolicy'),
        ('NodeTaintsPolicy', '*v1.NodeInclusionPolicy'), ('MatchLabelKeys', '[]string'),
    ),
    'v1.TypedLocalObjectReference': (
        ('APIGroup', '*string', 'apiGroup'), ('Kind', 'string'), ('Name', 'string'),
    ),
    'v1.TypedObjectReference': (
        ('APIGroup', '*string', 'apiGroup'), ('Kind', 'string'), ('Name', 'string'), ('Namespace', '*string'),
    ),
    'v1.Volume': (
        ('Name', 'string'), ('VolumeSource', 'v1.VolumeSource', ''),
    ),
    'v1.VolumeDevice': (
        ('Name', 'string'), ('DevicePath', 'string'),
    ),
    'v1.VolumeMount': (
        ('Name', 'string'), ('ReadOnly', 'bool'), ('RecursiveReadOnly', '*v1.RecursiveReadOnlyMode'),
        ('MountPath', 'string'), ('SubPath', 'string'), ('MountPropagation', '*v1.MountPropagationMode'),
        ('SubPathExpr', 'string'), ('BindMountOptions', '[]string'),
    ),
    'v1.VolumeProjection': (
        ('Secret', '*v1.SecretProjection'), ('DownwardAPI', '*v1.DownwardAPIProjection'),
        ('ConfigMap', '*v1.ConfigMapProjection'),
        ('ServiceAccountToken', '*v1.ServiceAccountTokenProjection'),
        ('ClusterTrustBundle', '*v1.ClusterTrustBundleProjection'),
        ('PodCertificate', '*v1.PodCertificateProjection'),
    ),
    'v1.VolumeResourceRequirements': (
        ('Limits', 'v1.ResourceList'), ('Requests', 'v1.ResourceList'),
    ),
    'v1.VolumeSource': (
        ('HostPath', '*v1.HostPathVolumeSource'), ('EmptyDir', '*v1.EmptyDirVolumeSource'),
        ('GCEPersistentDisk', '*v1.GCEPersistentDiskVolumeSource', 'gcePersistentDisk'),
        ('AWSElasticBlockStore', '*v1.AWSElasticBlockStoreVolumeSource', 'awsElasticBlockStore'),
        ('GitRepo', '*v1.GitRepoVolumeSource'), ('Secret', '*v1.SecretVolumeSource'),
        ('NFS', '*v1.NFSVolumeSource', 'nfs'), ('ISCSI', '*v1.ISCSIVolumeSource', 'iscsi'),
        ('Glusterfs', '*v1.GlusterfsVolumeSource'),
        ('PersistentVolumeClaim', '*v1.PersistentVolumeClaimVolumeSource'),
        ('RBD', '*v1.RBDVolumeSource', 'rbd'), ('FlexVolume', '*v1.FlexVolumeSource'),
        ('Cinder', '*v1.CinderVolumeSource'), ('CephFS', '*v1.CephFSVolumeSource', 'cephfs'),
        ('Flocker', '*v1.FlockerVolumeSource'), ('DownwardAPI', '*v1.DownwardAPIVolumeSource'),
        ('FC', '*v1.FCVolumeSource', 'fc'), ('AzureFile', '*v1.AzureFileVolumeSource'),
        ('ConfigMap', '*v1.ConfigMapVolumeSource'), ('VsphereVolume', '*v1.VsphereVirtualDiskVolumeSource'),
        ('Quobyte', '*v1.QuobyteVolumeSource'), ('AzureDisk', '*v1.AzureDiskVolumeSource'),
        ('PhotonPersistentDisk', '*v1.PhotonPersistentDiskVolumeSource'),
        ('Projected', '*v1.ProjectedVolumeSource'), ('PortworxVolume', '*v1.PortworxVolumeSource'),
        ('ScaleIO', '*v1.ScaleIOVolumeSource'), ('StorageOS', '*v1.StorageOSVolumeSource', 'storageos'),
        ('CSI', '*v1.CSIVolumeSource', 'csi'), ('Ephemeral', '*v1.EphemeralVolumeSource'),
        ('Image', '*v1.ImageVolumeSource'),
    ),
    'v1.VsphereVirtualDiskVolumeSource': (
        ('VolumePath', 'string'), ('FSType', 'string', 'fsType'), ('StoragePolicyName', 'string'),
        ('StoragePolicyID', 'string'),
    ),
    'v1.WeightedPodAffinityTerm': (
        ('Weight', 'int32'), ('PodAffinityTerm', 'v1.PodAffinityTerm'),
    ),
    'v1.WindowsSecurityContextOptions': (
        ('GMSACredentialSpecName', '*string', 'gmsaCredentialSpecName'),
        ('GMSACredentialSpec', '*string', 'gmsaCredentialSpec'), ('RunAsUserName', '*string'),
        ('HostProcess', '*bool'),
    ),
}

NAMED = {
    'big.Word': 'uint', 'big.nat': '[]big.Word', 'inf.Scale': 'int32', 'intstr.Type': 'int64',
    'resource.Format': 'string', 'resource.Scale': 'int32', 'types.UID': 'string',
    'v1.AppArmorProfileType': 'string', 'v1.AzureDataDiskCachingMode': 'string',
    'v1.AzureDataDiskKind': 'string', 'v1.Capability': 'string', 'v1.ContainerRestartPolicy': 'string',
    'v1.ContainerRestartRuleAction': 'string', 'v1.ContainerRestartRuleOnExitCodesOperator': 'string',
    'v1.DNSPolicy': 'string', 'v1.GRPCProbeMode': 'string', 'v1.HTTPProtocol': 'string',
    'v1.HostPathType': 'string', 'v1.LabelSelectorOperator': 'string',
    'v1.ManagedFieldsOperationType': 'string', 'v1.MountPropagationMode': 'string',
    'v1.NodeInclusionPolicy': 'string', 'v1.NodeSelectorOperator': 'string', 'v1.OSName': 'string',
    'v1.PersistentVolumeAccessMode': 'string', 'v1.PersistentVolumeMode': 'string',
    'v1.PodConditionType': 'string', 'v1.PodFSGroupChangePolicy': 'string',
    'v1.PodSELinuxChangePolicy': 'string', 'v1.PreemptionPolicy': 'string', 'v1.ProcMountType': 'string',
    'v1.Protocol': 'string', 'v1.PullPolicy': 'string', 'v1.RecursiveReadOnlyMode': 'string',
    'v1.ResourceList': 'map[v1.ResourceName]resource.Quantity', 'v1.ResourceName': 'string',
    'v1.ResourceResizeRestartPolicy': 'string', 'v1.RestartPolicy': 'string',
    'v1.SeccompProfileType': 'string', 'v1.Signal': 'string', 'v1.StorageMedium': 'string',
    'v1.SupplementalGroupsPolicy': 'string', 'v1.TaintEffect': 'string',
    'v1.TerminationMessagePolicy': 'string', 'v1.TolerationOperator': 'string', 'v1.URIScheme': 'string',
    'v1.UnsatisfiableConstraintAction': 'string',
}
