export const FIGURE_NAMES: string[];
