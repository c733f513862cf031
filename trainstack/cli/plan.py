"""`trainstack plan`: the cluster rendered offline, as a table or one JSON object."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape
from rich.table import Table

from trainstack.console import console
from trainstack.plan.select import CloudOpt, ProjectOpt, SpecOpt, StackOpt, render_plan

out = console()


def plan(stack: Optional[str] = StackOpt, spec: Optional[Path] = SpecOpt,
         cloud: Optional[str] = CloudOpt, project: Optional[Path] = ProjectOpt,
         as_json: bool = typer.Option(False, "--json", help="Print the plan as one JSON object.")):
    """Render the cluster offline under Pulumi's mock engine and list its resources."""
    result = render_plan(stack, spec, cloud, project)
    changes = [dict(c) for c in result.inputs.tag_changes]
    image, needs = _node_image_and_account(result)
    if as_json:
        document = result.to_json()
        document["tag_changes"] = changes
        document["warnings"] = list(result.warnings)
        document["node_image"] = image
        document["account_needs"] = needs
        print(json.dumps(document, indent=2, sort_keys=True))
        return
    table = Table(title=f"trainstack plan: {result.cloud} (stack {escape(result.stack)})")
    for column in ("type", "name", "zone"):
        table.add_column(column, overflow="fold")
    for resource in result.resources:
        table.add_row(escape(resource.type), escape(resource.name), escape(result.zone_of(resource)))
    out.print(table)
    outputs = Table(title="outputs (offline placeholders where the cloud assigns the value)")
    outputs.add_column("output")
    outputs.add_column("value")
    for key, value in sorted(result.outputs.items()):
        outputs.add_row(escape(key), escape(json.dumps(value) if not isinstance(value, str)
                                            else value))
    out.print(outputs)
    for change in changes:
        out.print(f"tag {change['tag']}: {change['value']!r} becomes the {result.cloud} label "
                  f"{change['label']}: {change['label_value']!r} (the cloud's label rules)",
                  markup=False, highlight=False)
    out.print(f"node image: {image['image']}", markup=False, highlight=False)
    for item in image["installs"]:
        out.print(f"  the boot installs {item['what']}: {item['why']}", markup=False,
                  highlight=False)
    if needs:
        out.print(f"the account needs (`trainstack bootstrap {result.cloud}` checks them):",
                  markup=False, highlight=False)
    for need in needs:
        out.print(f"  {need['what']}: {need['why']}", markup=False, highlight=False)
    sel = result.inputs.selection
    out.print(f"{len(result.resources)} resources; selection: {sel.instance.name} "
              f"x {result.inputs.spec.nodes}, {sel.fabric_note}, "
              f"{sel.usd_per_hour:,.2f} USD/h (price source: "
              f"{sel.price.source}, as of {sel.price.as_of})", markup=False, highlight=False)
    for warning in result.warnings:  # missing stack config (trainstack/plan/required_config.py)
        out.print(warning, markup=False, highlight=False)



def _node_image_and_account(result) -> tuple[dict, list[dict]]:
    """The node image, what the boot installs on top of it and why (catalog/node_images.csv),
    and what the account needs (deploy/account.py): offline, nothing is asked."""
    from trainstack.deploy import account
    from trainstack_components.catalog import node_images
    image = {"image": node_images.image_name(result.cloud),
             "installs": [{"what": what, "why": why}
                          for what, why in node_images.installs(result.cloud)]}
    needs = [{"what": n.what, "why": n.why, "fix": n.fix} for n in
             account.cluster_needs(result.cloud, result.inputs.spec, result.inputs.selection)]
    return image, needs
