"""Policy rules: whether one allows a request (pkg/apis/rbac/v1/evaluation_helpers.go, `RuleAllows`
in plugin/pkg/auth/authorizer/rbac/rbac.go), whether rules cover others (pkg/registry/rbac/validation
policy_comparator.go, `Covers`, with `BreakdownRule`), and how the missing ones are written in an
escalation error (policy_compact.go `CompactRules`, `CompactString`).

A rule is a dict as the API holds it: verbs, apiGroups, resources, resourceNames,
nonResourceURLs. An attributes record is a dict: user (a UserInfo), verb, namespace, api_group,
api_version, resource, subresource, name, resource_request, path.
"""

VERB_ALL = '*'
API_GROUP_ALL = '*'
RESOURCE_ALL = '*'
NON_RESOURCE_ALL = '*'


def _get(rule, key):
    return rule.get(key) or []


def verb_matches(rule, verb):
    verbs = _get(rule, 'verbs')
    return VERB_ALL in verbs or verb in verbs


def api_group_matches(rule, group):
    groups = _get(rule, 'apiGroups')
    return API_GROUP_ALL in groups or group in groups


def resource_matches(rule, combined, subresource):
    for resource in _get(rule, 'resources'):
        if resource in (RESOURCE_ALL, combined):
            return True
        # `*/scale` matches the scale subresource of any resource.
        if subresource and len(resource) == len(subresource) + 2 and resource.startswith('*/') \
                and resource.endswith(subresource):
            return True
    return False


def resource_name_matches(rule, name):
    names = _get(rule, 'resourceNames')
    return not names or name in names


def non_resource_url_matches(rule, path):
    for url in _get(rule, 'nonResourceURLs'):
        if url in (NON_RESOURCE_ALL, path):
            return True
        if url.endswith('*') and path.startswith(url.rstrip('*')):
            return True
    return False


def rule_allows(attrs, rule):
    """RuleAllows: the verb, then the group, resource (with its subresource) and name, or the path."""
    if attrs['resource_request']:
        combined = attrs['resource']
        if attrs.get('subresource'):
            combined = f'{combined}/{attrs["subresource"]}'
        return (verb_matches(rule, attrs['verb']) and api_group_matches(rule, attrs['api_group'])
                and resource_matches(rule, combined, attrs.get('subresource') or '')
                and resource_name_matches(rule, attrs.get('name') or ''))
    return verb_matches(rule, attrs['verb']) and non_resource_url_matches(rule, attrs['path'])


# ---- covering (escalation) -------------------------------------------------------------------
def breakdown_rule(rule):
    """BreakdownRule: one rule per group, resource, verb (and resource name), then per URL and verb."""
    out = []
    for group in _get(rule, 'apiGroups'):
        for resource in _get(rule, 'resources'):
            for verb in _get(rule, 'verbs'):
                if _get(rule, 'resourceNames'):
                    for name in rule['resourceNames']:
                        out.append({'apiGroups': [group], 'resources': [resource], 'verbs': [verb],
                                    'resourceNames': [name]})
                else:
                    out.append({'apiGroups': [group], 'resources': [resource], 'verbs': [verb]})
    for url in _get(rule, 'nonResourceURLs'):
        for verb in _get(rule, 'verbs'):
            out.append({'nonResourceURLs': [url], 'verbs': [verb]})
    return out


def _has_all(owned, wanted):
    return all(w in owned for w in wanted)


def _resource_covers_all(owned, wanted):
    if RESOURCE_ALL in owned or _has_all(owned, wanted):
        return True
    for path in wanted:
        if path in owned:
            continue
        if '/' not in path:
            return False
        if '*/' + path.split('/', 1)[1] not in owned:
            return False
    return True


def _non_resource_url_covers(owner, path):
    return owner == path or (owner.endswith('*') and path.startswith(owner.rstrip('*')))


def rule_covers(owner, sub):
    """ruleCovers: whether ``owner`` grants everything the broken-down rule ``sub`` does."""
    verbs = VERB_ALL in _get(owner, 'verbs') or _has_all(_get(owner, 'verbs'), _get(sub, 'verbs'))
    groups = API_GROUP_ALL in _get(owner, 'apiGroups') or _has_all(_get(owner, 'apiGroups'),
                                                                   _get(sub, 'apiGroups'))
    resources = _resource_covers_all(_get(owner, 'resources'), _get(sub, 'resources'))
    urls = all(any(_non_resource_url_covers(o, p) for o in _get(owner, 'nonResourceURLs'))
               for p in _get(sub, 'nonResourceURLs'))
    if not _get(sub, 'resourceNames'):
        names = not _get(owner, 'resourceNames')
    else:
        names = not _get(owner, 'resourceNames') or _has_all(owner['resourceNames'], sub['resourceNames'])
    return verbs and groups and resources and names and urls


def covers(owner_rules, servant_rules):
    """Covers: (whether ``owner_rules`` cover ``servant_rules``, the broken-down rules they miss)."""
    missing = []
    for servant in servant_rules:
        for sub in breakdown_rule(servant):
            if not any(rule_covers(owner, sub) for owner in owner_rules):
                missing.append(sub)
    return not missing, missing


def compact_rules(rules):
    """CompactRules: rules on one group and resource (and at most one name) merged, their verbs
    appended; the others kept as they are, first."""
    compacted, simple, order = [], {}, []
    for rule in rules:
        names = _get(rule, 'resourceNames')
        if (len(names) <= 1 and not _get(rule, 'nonResourceURLs') and len(_get(rule, 'apiGroups')) == 1
                and len(_get(rule, 'resources')) == 1):
            key = (rule['apiGroups'][0], rule['resources'][0], bool(names), names[0] if names else '')
            if key in simple:
                simple[key]['verbs'] = simple[key]['verbs'] + list(_get(rule, 'verbs'))
            else:
                simple[key] = {k: list(v) for k, v in rule.items()}
                order.append(key)
        else:
            compacted.append(rule)
    return compacted + [simple[k] for k in order]


def go_quote_list(values):
    """Go's %q of a []string: ["a" "b"]."""
    return '[' + ' '.join('"' + v.replace('\\', '\\\\').replace('"', '\\"') + '"' for v in values) + ']'


def compact_string(rule):
    """CompactString: `{APIGroups:["apps"], Resources:["deployments"], Verbs:["patch"]}`."""
    parts = []
    for key, label in (('apiGroups', 'APIGroups'), ('resources', 'Resources'),
                       ('nonResourceURLs', 'NonResourceURLs'), ('resourceNames', 'ResourceNames'),
                       ('verbs', 'Verbs')):
        if _get(rule, key):
            parts.append(f'{label}:{go_quote_list(rule[key])}')
    return '{' + ', '.join(parts) + '}'
