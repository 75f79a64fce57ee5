/// Where a widget sits in a document: a top-level list (header, a section, footer) and then a path of child
/// indices for nested widgets.
struct WidgetLocation: Equatable {
    enum List: Equatable {
        case header
        case section(Int)
        case footer
    }

    var list: List
    var index: Int
    /// Child indices below the top-level widget; empty for a top-level widget.
    var childPath: [Int] = []

    var isTopLevel: Bool { childPath.isEmpty }
}

extension PageModel {
    /// The widget with `id`: top-level widgets first (they are unique page-wide), then nested children depth-first
    /// in document order.
    func locate(_ id: String) -> WidgetLocation? {
        var lists: [(WidgetLocation.List, [Widget])] = [(.header, header)]
        for (index, section) in sections.enumerated() { lists.append((.section(index), section.widgets)) }
        lists.append((.footer, footer))
        for (list, widgets) in lists {
            if let index = widgets.firstIndex(where: { $0.id == id }) {
                return WidgetLocation(list: list, index: index)
            }
        }
        for (list, widgets) in lists {
            for (index, widget) in widgets.enumerated() {
                if let childPath = Self.childPath(to: id, in: widget.children) {
                    return WidgetLocation(list: list, index: index, childPath: childPath)
                }
            }
        }
        return nil
    }

    static func childPath(to id: String, in children: [Widget]) -> [Int]? {
        for (index, child) in children.enumerated() {
            if child.id == id { return [index] }
            if let below = childPath(to: id, in: child.children) { return [index] + below }
        }
        return nil
    }

    /// The widget at `location`, if any.
    public func widget(withID id: String) -> Widget? {
        guard let location = locate(id) else { return nil }
        var widget: Widget
        switch location.list {
        case .header: widget = header[location.index]
        case .section(let section): widget = sections[section].widgets[location.index]
        case .footer: widget = footer[location.index]
        }
        for index in location.childPath { widget = widget.children[index] }
        return widget
    }

    /// The ids of the widgets beside the one at `location` (itself included) in its parent's children.
    func siblingIDs(of location: WidgetLocation) -> [String] {
        var widget: Widget
        switch location.list {
        case .header: widget = header[location.index]
        case .section(let section): widget = sections[section].widgets[location.index]
        case .footer: widget = footer[location.index]
        }
        for index in location.childPath.dropLast() { widget = widget.children[index] }
        return widget.children.map(\.id)
    }

    /// Replaces (or, with `nil`, removes) the widget at `location`.
    mutating func modify(at location: WidgetLocation, _ change: (inout Widget?) -> Void) {
        switch location.list {
        case .header: Self.modify(&header, location.index, location.childPath[...], change)
        case .section(let section):
            Self.modify(&sections[section].widgets, location.index, location.childPath[...], change)
        case .footer: Self.modify(&footer, location.index, location.childPath[...], change)
        }
    }

    static func modify(
        _ widgets: inout [Widget], _ index: Int, _ path: ArraySlice<Int>, _ change: (inout Widget?) -> Void
    ) {
        guard let next = path.first else {
            var widget: Widget? = widgets[index]
            change(&widget)
            if let widget { widgets[index] = widget } else { widgets.remove(at: index) }
            return
        }
        modify(&widgets[index].children, next, path.dropFirst(), change)
    }
}
