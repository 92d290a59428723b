// VS Code entry point (dist/extension.js); the adapters live in src/host.
export { activate, deactivate } from './host/activate';
