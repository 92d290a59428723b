import * as vscode from 'vscode';
import { homeNodes, type HomeFacts, type HomeNode } from './homeItems';

/**
 * The Cortex view in the activity bar (`cortex.home`): a tree over homeNodes. Every item works
 * from the keyboard (Enter runs its command; inline actions are in its context menu too).
 */
export class HomeView implements vscode.TreeDataProvider<HomeNode> {
  constructor(
    /** What the view shows (asynchronous: the interrupted runs are read from their traces). */
    private readonly facts: () => Promise<HomeFacts>,
    private readonly now: () => number = () => Date.now(),
  ) {}

  async getChildren(node?: HomeNode): Promise<HomeNode[]> {
    return node ? (node.children ?? []) : homeNodes(await this.facts(), this.now());
  }

  getTreeItem(node: HomeNode): vscode.TreeItem {
    const state = node.children
      ? node.collapsed
        ? vscode.TreeItemCollapsibleState.Collapsed
        : vscode.TreeItemCollapsibleState.Expanded
      : vscode.TreeItemCollapsibleState.None;
    const item = new vscode.TreeItem(node.label, state);
    item.id = node.id;
    item.description = node.description;
    item.tooltip = node.tooltip;
    item.contextValue = node.contextValue;
    if (node.icon) item.iconPath = new vscode.ThemeIcon(node.icon);
    if (node.command) item.command = { command: node.command.id, title: node.label, arguments: node.command.args };
    item.accessibilityInformation = { label: [node.label, node.description].filter(Boolean).join(', ') };
    return item;
  }
}
